import type { ReactNode } from 'react';

/** The loading, empty and error states share one calm layout. */
export function StatePanel({
  tone,
  title,
  children,
}: {
  tone: 'loading' | 'empty' | 'error';
  title: string;
  children?: ReactNode;
}) {
  return (
    <div className={`state-panel state-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {tone === 'loading' && <span className="spinner" aria-hidden="true" />}
      <h2>{title}</h2>
      {children}
    </div>
  );
}
