/**
 * What a task was started with that a resume must keep: its limit on model calls and the
 * provider URL given on the command line. Kept under `run` in the metadata column of its
 * tasks.db row (which travels with archives), so it must never hold a secret: a URL with
 * credentials or a query string in it is not kept.
 */
export interface RunSettings {
  /** Model calls allowed over the task's whole life, counted from its first call. */
  max_turns?: number;
  base_url?: string;
}

export const DEFAULT_MAX_TURNS = 50;

/** The settings kept in a row's metadata JSON; anything malformed is ignored. */
export function runSettingsOf(metadata: string | null): RunSettings {
  const run = parseObject(metadata)?.run;
  if (run === null || typeof run !== 'object' || Array.isArray(run)) return {};
  const { max_turns, base_url } = run as Record<string, unknown>;
  return {
    ...(Number.isInteger(max_turns) &&
      (max_turns as number) > 0 && { max_turns: max_turns as number }),
    ...(typeof base_url === 'string' && storableBaseUrl(base_url) && { base_url }),
  };
}

/** The metadata JSON with `run` replaced by `settings`; other keys are kept as they were. */
export function withRunSettings(
  metadata: string | null,
  settings: RunSettings,
): Record<string, unknown> {
  const run: RunSettings = {
    ...(settings.max_turns !== undefined && { max_turns: settings.max_turns }),
    ...(settings.base_url !== undefined &&
      storableBaseUrl(settings.base_url) && { base_url: settings.base_url }),
  };
  return { ...parseObject(metadata), run };
}

/** A URL may be kept when it carries no user, password or query (where keys sometimes go). */
export function storableBaseUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '' && parsed.search === '';
  } catch {
    return false;
  }
}

function parseObject(text: string | null): Record<string, unknown> | undefined {
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
