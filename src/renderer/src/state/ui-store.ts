import { create } from 'zustand';

export type ThemeChoice = 'system' | 'light' | 'dark';
export type Language = 'en' | 'ja';

interface UiState {
  theme: ThemeChoice;
  language: Language;
  setTheme(theme: ThemeChoice): void;
  setLanguage(language: Language): void;
}

const STORAGE_KEY = 'cwb.ui';

/** Theme and language, remembered in localStorage (the same in the app and in `cwb serve`). */
export const useUiStore = create<UiState>((set) => {
  const saved = readSaved();
  const save = (patch: Partial<Pick<UiState, 'theme' | 'language'>>): void => {
    set(patch);
    try {
      const { theme, language } = useUiStore.getState();
      localStorage.setItem(STORAGE_KEY, JSON.stringify({ theme, language, ...patch }));
    } catch {
      // storage can be unavailable (private windows): the choice lasts for this session
    }
  };
  return {
    theme: saved.theme ?? 'system',
    language: saved.language ?? browserLanguage(),
    setTheme: (theme) => save({ theme }),
    setLanguage: (language) => save({ language }),
  };
});

/** Japanese for a Japanese browser, else English (also where there is no browser: unit tests). */
function browserLanguage(): Language {
  const tag = typeof navigator === 'undefined' ? '' : navigator.language.toLowerCase();
  return tag.startsWith('ja') ? 'ja' : 'en';
}

function readSaved(): Partial<Pick<UiState, 'theme' | 'language'>> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}');
    if (!parsed || typeof parsed !== 'object') return {};
    const { theme, language } = parsed as Record<string, unknown>;
    return {
      ...(theme === 'system' || theme === 'light' || theme === 'dark' ? { theme } : {}),
      ...(language === 'en' || language === 'ja' ? { language } : {}),
    };
  } catch {
    return {};
  }
}
