import type { ReactNode } from 'react';

/** Loading, empty and error states of the compaction views, in one calm layout. */
export function CompactionState({
  tone,
  title,
  detail,
  children,
}: {
  tone: 'loading' | 'empty' | 'error';
  title: string;
  detail?: string;
  children?: ReactNode;
}) {
  return (
    <div className={`cmp-state cmp-state-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {tone === 'loading' && <span className="cmp-spinner" aria-hidden="true" />}
      <h2>{title}</h2>
      {detail && <p className="cmp-state-detail">{detail}</p>}
      {children}
    </div>
  );
}
