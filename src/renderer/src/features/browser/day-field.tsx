import { useRef } from 'react';
import { parseDay } from '../../format/dates';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { browserStrings } from './strings';

/**
 * A day picker whose text follows the UI's language: Chromium writes a native date input in
 * the OS's format whatever the page's language, so the input stays hidden (it keeps the
 * value and opens the browser's calendar) and a button shows the day through
 * Intl.DateTimeFormat. Enter or Space opens the calendar, Delete clears.
 */
export function DayField(props: {
  name: string;
  label: string;
  value: string;
  min?: string;
  max?: string;
  onChange(day: string): void;
}) {
  const t = useT(browserStrings);
  const f = useFormat();
  const input = useRef<HTMLInputElement>(null);
  const day = parseDay(props.value);
  const shown = day ? f.date(day) : t('anyDay');
  const open = (): void => {
    const el = input.current;
    if (!el) return;
    try {
      el.showPicker();
    } catch {
      el.focus(); // no picker (an old engine, or no user gesture): typing still works
    }
  };
  return (
    <span className={`day-field${day ? ' set' : ''}`}>
      <button
        type="button"
        className="day-button"
        data-day={props.name}
        aria-label={t('pickDay', { label: `${props.label}: ${shown}` })}
        onClick={open}
        onKeyDown={(e) => {
          if (e.key !== 'Delete' && e.key !== 'Backspace') return;
          e.preventDefault();
          props.onChange('');
        }}
      >
        <span className="day-label">{props.label}</span>
        <span className="day-value">{shown}</span>
        <svg className="day-icon" viewBox="0 0 16 16" aria-hidden="true">
          <rect x="2" y="3" width="12" height="11" rx="2" fill="none" stroke="currentColor" />
          <path d="M2 6.5h12M5 1.5v3M11 1.5v3" stroke="currentColor" />
        </svg>
      </button>
      <input
        ref={input}
        type="date"
        name={props.name}
        className="day-native"
        tabIndex={-1}
        aria-hidden="true"
        value={props.value}
        min={props.min}
        max={props.max}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {day && (
        <button
          type="button"
          className="day-clear"
          aria-label={t('clearDay', { label: props.label })}
          onClick={() => props.onChange('')}
        >
          ×
        </button>
      )}
    </span>
  );
}
