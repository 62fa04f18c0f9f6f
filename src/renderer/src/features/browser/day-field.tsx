import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { addDays, dayOf, parseDay } from '../../format/dates';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { browserStrings } from './strings';
import { parseTypedDay } from './typed-day';

/** The example day the hints show, in the form every language's field accepts. */
const EXAMPLE = '2026-03-31';

/**
 * A day typed as text: the field shows the day in the UI's language (Chromium would write a
 * native date input in the OS's format whatever the page's language) and takes what a person
 * types (typed-day.ts) on Enter or on leaving it; ↑/↓ move the day by one, an emptied field
 * clears it, Esc undoes the typing. The calendar button opens the browser's own picker over
 * a hidden native input (also Alt+↓ in the field).
 */
export function DayField(props: {
  name: string;
  /** The visible label ("from"). */
  label: string;
  /** What a screen reader hears ("Created from"). */
  fullLabel: string;
  value: string;
  min?: string;
  max?: string;
  onChange(day: string): void;
}) {
  const t = useT(browserStrings);
  const f = useFormat();
  const id = useId();
  const native = useRef<HTMLInputElement>(null);
  const day = parseDay(props.value);
  const shown = day ? f.date(day) : '';
  // The text being typed; null while the field shows the value.
  const [draft, setDraft] = useState<string | null>(null);
  const invalid = draft !== null && parseTypedDay(draft) === null;

  const commit = (): void => {
    if (draft === null) return;
    const next = parseTypedDay(draft);
    if (next === null) return; // stays on screen, marked, until it is a day or undone
    setDraft(null);
    if (next !== props.value) props.onChange(next);
  };
  const step = (days: number): void => {
    const from = (draft !== null && parseTypedDay(draft)) || props.value || dayOf(new Date());
    const next = addDays(from, days);
    setDraft(null);
    if (next) props.onChange(next);
  };
  const openPicker = (): void => {
    try {
      native.current?.showPicker();
    } catch {
      // No picker in this engine: typing still works.
    }
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.altKey && e.key === 'ArrowDown') openPicker();
    else if (e.key === 'ArrowUp') step(1);
    else if (e.key === 'ArrowDown') step(-1);
    else if (e.key === 'Enter') commit();
    else if (e.key === 'Escape' && draft !== null) setDraft(null);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <span className={`day-field${day ? ' set' : ''}${invalid ? ' invalid' : ''}`}>
      <label className="day-label" htmlFor={id}>
        {props.label}
      </label>
      <input
        id={id}
        type="text"
        className="day-input"
        name={`${props.name}-text`}
        data-day={props.name}
        autoComplete="off"
        spellCheck={false}
        aria-label={props.fullLabel}
        aria-invalid={invalid || undefined}
        placeholder={t('anyDay')}
        title={
          invalid
            ? t('dayInvalid', { text: draft ?? '', example: EXAMPLE })
            : t('dayHint', { example: EXAMPLE })
        }
        value={draft ?? shown}
        onFocus={(e) => e.currentTarget.select()}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={onKeyDown}
      />
      <button
        type="button"
        className="day-pick"
        tabIndex={-1}
        aria-label={t('pickDay', { label: props.fullLabel })}
        title={t('pickDay', { label: props.fullLabel })}
        onClick={openPicker}
      >
        <svg className="day-icon" viewBox="0 0 16 16" aria-hidden="true">
          <rect x="2" y="3" width="12" height="11" rx="2" fill="none" stroke="currentColor" />
          <path d="M2 6.5h12M5 1.5v3M11 1.5v3" stroke="currentColor" />
        </svg>
      </button>
      <input
        ref={native}
        type="date"
        name={props.name}
        className="day-native"
        tabIndex={-1}
        aria-hidden="true"
        value={props.value}
        min={props.min}
        max={props.max}
        onChange={(e) => {
          setDraft(null);
          props.onChange(e.target.value);
        }}
      />
      {day && (
        <button
          type="button"
          className="day-clear"
          tabIndex={-1}
          aria-label={t('clearDay', { label: props.fullLabel })}
          title={t('clearDay', { label: props.fullLabel })}
          onClick={() => {
            setDraft(null);
            props.onChange('');
          }}
        >
          ×
        </button>
      )}
    </span>
  );
}
