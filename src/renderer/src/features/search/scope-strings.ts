import { defineStrings } from '../../i18n/translate';

/** The scope switch's own strings: it shows with the task list, before the search loads. */
export const scopeStrings = defineStrings({
  en: { scope: 'Search in', scopeTasks: 'Tasks', scopeMessages: 'Messages' },
  ja: { scope: '検索対象', scopeTasks: 'タスク', scopeMessages: 'メッセージ' },
});
