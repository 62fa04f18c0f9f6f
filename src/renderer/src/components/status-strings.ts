import { defineStrings } from '../i18n/translate';

/** Task status names, shared by every view that shows a status. */
export const statusStrings = defineStrings({
  en: { running: 'Running', paused: 'Paused', completed: 'Completed', failed: 'Failed' },
  ja: { running: '実行中', paused: '一時停止', completed: '完了', failed: '失敗' },
});
