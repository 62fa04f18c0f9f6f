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
    title: 'messages',
    rows: [
      ['/', 'search'],
      ['↑ ↓', 'hits'],
      ['Enter', 'openHit'],
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

/** The list of keys, in a dialog (loaded the first time `?` is pressed). */
export function KeysDialog({ onClose }: { onClose(): void }) {
  const t = useT(keysStrings);
  return (
    <ModalDialog
      title={t('title')}
      className="keys-overlay"
      onClose={onClose}
      footer={
        <button type="button" className="primary" autoFocus onClick={onClose}>
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
