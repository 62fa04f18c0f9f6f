import { useEffect, useState } from 'react';
import { useT } from '../i18n/use-t';
import { keysStrings } from './keys-strings';
import { ModalDialog } from './modal-dialog';

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
      ['d', 'dates'],
      ['← →', 'dateChoices'],
      ['↑ ↓', 'dayStep'],
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
