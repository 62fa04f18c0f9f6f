import { defineStrings } from '../i18n/translate';

export const dialogStrings = defineStrings({
  en: { close: 'Close this dialog' },
  ja: { close: 'このダイアログを閉じる' },
});
