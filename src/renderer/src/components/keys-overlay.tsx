import { useEffect, useState } from 'react';
import { defineStrings, useT } from '../i18n/use-t';
import { ModalDialog } from './modal-dialog';

const keysStrings = defineStrings({
  en: {
    title: 'Keyboard',
    close: 'Close',
    list: 'Task list',
    task: 'Task',
    anywhere: 'Anywhere',
    move: 'Move the cursor',
    page: 'A page up or down',
    ends: 'First or last task',
    open: 'Open the task',
    search: 'Search titles and prompts',
    byCost: 'Most expensive first',
    backToTask: 'Back to the task (from a compaction)',
    toList: 'Back to the list (from the search box)',
    back: 'Back to the task list',
    tabs: 'Next or previous tab',
    chart: 'Collapse or expand the chart',
    export: 'Export this task',
    help: 'This list of keys',
    closeDialog: 'Close a dialog or this list',
  },
  ja: {
    title: 'キーボード操作',
    close: '閉じる',
    list: 'タスク一覧',
    task: 'タスク',
    anywhere: 'どこでも',
    move: 'カーソルを移動',
    page: '1 ページ上・下へ',
    ends: '最初・最後のタスクへ',
    open: 'タスクを開く',
    search: 'タイトルとプロンプトを検索',
    byCost: 'コストの高い順に並べる',
    backToTask: 'タスクへ戻る（圧縮の画面から）',
    toList: '一覧へ戻る（検索欄から）',
    back: 'タスク一覧へ戻る',
    tabs: '次・前のタブ',
    chart: 'グラフを折りたたむ・広げる',
    export: 'このタスクをエクスポート',
    help: 'このキー一覧',
    closeDialog: 'ダイアログやこの一覧を閉じる',
  },
});

type Key = keyof (typeof keysStrings)['en'];

const SECTIONS: { title: Key; rows: [string, Key][] }[] = [
  {
    title: 'list',
    rows: [
      ['↑ ↓ j k', 'move'],
      ['PageUp PageDown', 'page'],
      ['Home End', 'ends'],
      ['Enter', 'open'],
      ['/', 'search'],
      ['$', 'byCost'],
      ['↓', 'toList'],
    ],
  },
  {
    title: 'task',
    rows: [
      ['Esc', 'back'],
      ['Esc', 'backToTask'],
      ['[ ]', 'tabs'],
      ['c', 'chart'],
      ['e', 'export'],
    ],
  },
  {
    title: 'anywhere',
    rows: [
      ['?', 'help'],
      ['Esc', 'closeDialog'],
    ],
  },
];

/** Whether a key press belongs to a field or a dialog rather than to the page. */
export function typingOrDialog(e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement | null;
  if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return true;
  return Boolean(target?.isContentEditable || document.querySelector('dialog[open]'));
}

/** `?` anywhere (outside a field) lists the keys. */
export function KeysOverlay() {
  const t = useT(keysStrings);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || typingOrDialog(e)) return;
      e.preventDefault();
      setOpen(true);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  if (!open) return null;
  return (
    <ModalDialog
      title={t('title')}
      className="keys-overlay"
      onClose={() => setOpen(false)}
      footer={
        <button type="button" className="primary" autoFocus onClick={() => setOpen(false)}>
          {t('close')}
        </button>
      }
    >
      {SECTIONS.map((section) => (
        <section key={section.title} className="keys-section">
          <h3>{t(section.title)}</h3>
          <dl>
            {section.rows.map(([keys, what]) => (
              <div key={`${keys}-${what}`} className="keys-row">
                <dt>
                  {keys.split(' ').map((k) => (
                    <kbd key={k}>{k}</kbd>
                  ))}
                </dt>
                <dd>{t(what)}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </ModalDialog>
  );
}
