import { useState, type FormEvent } from 'react';
import type { CompactionRecordInfo } from '../../../../shared/api/compaction-api';
import { useT } from '../../i18n/use-t';
import { SearchPanel } from './search-panel';
import { taskStrings } from './strings';
import { Timeline } from './timeline';

export interface TimelineTabProps {
  uuid: string;
  view: 'history' | 'current';
  seq: number | undefined;
  /** Text to mark in the message at `seq`. */
  mark: string | undefined;
  revision: number;
  compactions: CompactionRecordInfo[];
  onRoute(change: { seq?: number; view?: 'history' | 'current' }): void;
}

/** The timeline with its toolbar: history/current switch, jump to seq, search. */
export function TimelineTab({
  uuid,
  view,
  seq,
  mark,
  revision,
  compactions,
  onRoute,
}: TimelineTabProps) {
  const t = useT(taskStrings);
  const [jump, setJump] = useState('');
  // Counts the jumps asked for: a jump to the seq already in the address changes nothing
  // there, yet must still bring the target back to a reader who scrolled away from it.
  const [jumps, setJumps] = useState(0);
  const go = (seq: number, inView: 'history' | 'current'): void => {
    setJumps((n) => n + 1);
    onRoute({ seq, view: inView });
  };
  const jumpTo = (target: number): void => go(target, 'history');
  const submitJump = (e: FormEvent): void => {
    e.preventDefault();
    const n = Number(jump);
    if (Number.isInteger(n) && n > 0) go(n, view);
  };
  return (
    <div className="tv-timeline-tab">
      <div className="tv-toolbar">
        <div className="tv-segmented" role="tablist" aria-label={t('history')}>
          {(['history', 'current'] as const).map((v) => (
            <button
              key={v}
              type="button"
              role="tab"
              aria-selected={view === v}
              className={view === v ? 'active' : ''}
              onClick={() => onRoute({ view: v })}
            >
              {t(v)}
            </button>
          ))}
        </div>
        <form className="tv-inline-form" onSubmit={submitJump}>
          <input
            className="tv-jump"
            inputMode="numeric"
            aria-label={t('jumpLabel')}
            placeholder={view === 'history' ? t('jumpLabel') : t('line', { n: '…' })}
            value={jump}
            onChange={(e) => setJump(e.target.value.replace(/[^0-9]/g, ''))}
          />
          <button type="submit">{t('jump')}</button>
        </form>
        <SearchPanel uuid={uuid} onJump={jumpTo} />
      </div>
      <Timeline
        key={view}
        uuid={uuid}
        view={view}
        target={seq}
        mark={mark}
        jumps={jumps}
        revision={revision}
        compactions={compactions}
        onJump={jumpTo}
      />
    </div>
  );
}
