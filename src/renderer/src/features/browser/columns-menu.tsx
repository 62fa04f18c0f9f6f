import { useT } from '../../i18n/use-t';
import { useColumnStore } from './column-store';
import { browserStrings } from './strings';
import { TASK_COLUMNS } from './task-columns';

/** Show or hide the task table's columns (remembered); title always shows. */
export function ColumnsMenu() {
  const t = useT(browserStrings);
  const hidden = useColumnStore((s) => s.hidden);
  const toggle = useColumnStore((s) => s.toggle);
  const reset = useColumnStore((s) => s.reset);
  const squeezed = useColumnStore((s) => s.squeezed);
  return (
    <details className="columns-menu">
      <summary>{t('columns')}</summary>
      <div className="columns-menu-list" role="group" aria-label={t('columns')}>
        {TASK_COLUMNS.filter((c) => c.id !== 'title').map((c) => (
          <label key={c.id}>
            <input
              type="checkbox"
              name={`column-${c.id}`}
              checked={!hidden.includes(c.id)}
              onChange={() => toggle(c.id)}
            />
            {t(c.label)}
            {squeezed.includes(c.id) && <span className="column-no-room">{t('noRoom')}</span>}
          </label>
        ))}
        <button type="button" className="link-button" onClick={reset}>
          {t('columnsReset')}
        </button>
      </div>
    </details>
  );
}
