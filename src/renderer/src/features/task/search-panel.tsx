import { useState, type FormEvent } from 'react';
import type { SearchHit } from '../../../../shared/api/messages-api';
import { useApi } from '../../api/api-context';
import { useT } from '../../i18n/use-t';
import { ROLE_KEYS } from './role-keys';
import { taskStrings } from './strings';

type SearchState =
  | { kind: 'idle' }
  | { kind: 'searching'; hits: SearchHit[] }
  | { kind: 'done'; hits: SearchHit[]; nextSeq: number | null }
  | { kind: 'error'; message: string };

/** Search within the task (bounded calls that resume); a hit jumps the timeline to its seq. */
export function SearchPanel({ uuid, onJump }: { uuid: string; onJump(seq: number): void }) {
  const api = useApi();
  const t = useT(taskStrings);
  const [query, setQuery] = useState('');
  const [state, setState] = useState<SearchState>({ kind: 'idle' });

  const search = (fromSeq: number, previous: SearchHit[]): void => {
    setState({ kind: 'searching', hits: previous });
    api.searchMessages({ uuid, query, fromSeq, limit: 100 }).then(
      (r) => setState({ kind: 'done', hits: [...previous, ...r.hits], nextSeq: r.nextSeq }),
      (err: unknown) =>
        setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  };
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (query.trim()) search(1, []);
  };
  const hits = state.kind === 'searching' || state.kind === 'done' ? state.hits : [];

  return (
    <div className="tv-search">
      <form onSubmit={submit} className="tv-inline-form" role="search">
        <input
          type="search"
          aria-label={t('searchLabel')}
          placeholder={t('searchLabel')}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="submit" disabled={!query.trim() || state.kind === 'searching'}>
          {t('search')}
        </button>
      </form>
      {state.kind !== 'idle' && (
        <div className="tv-search-results">
          <div className="tv-search-summary">
            <span>
              {state.kind === 'searching'
                ? t('searching')
                : state.kind === 'error'
                  ? state.message
                  : hits.length === 0 && state.nextSeq === null
                    ? t('searchNone')
                    : t('searchCount', { n: hits.length })}
            </span>
            <button type="button" className="tv-link" onClick={() => setState({ kind: 'idle' })}>
              {t('searchClose')}
            </button>
          </div>
          <ol>
            {hits.map((hit) => (
              <li key={`${hit.seq}:${hit.field}`}>
                <button type="button" className="tv-hit" onClick={() => onJump(hit.seq)}>
                  <span className="tv-seq">#{hit.seq}</span>{' '}
                  <span className="tv-role">
                    {ROLE_KEYS[hit.role] ? t(ROLE_KEYS[hit.role]!) : hit.role}
                  </span>{' '}
                  <span className="tv-snippet">
                    {hit.snippet.slice(0, hit.match[0])}
                    <mark>{hit.snippet.slice(hit.match[0], hit.match[1])}</mark>
                    {hit.snippet.slice(hit.match[1])}
                  </span>
                </button>
              </li>
            ))}
          </ol>
          {state.kind === 'done' && state.nextSeq !== null && (
            <button
              type="button"
              className="tv-small"
              onClick={() => search(state.nextSeq ?? 1, hits)}
            >
              {t('searchMore')}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
