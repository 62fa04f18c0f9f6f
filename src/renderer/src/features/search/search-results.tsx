import { forwardRef, type KeyboardEvent } from 'react';
import {
  SEARCH_ROLES,
  type SearchRole,
  type SessionSearchHit,
  type SessionSearchResult,
} from '../../../../shared/api/search-api';
import { agentLabel } from '../../../../shared/agents';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { browserStrings } from '../browser/strings';
import { routeHash, type Route } from '../../router/route';
import { groupHits, matchedText, type HitGroup } from './group-hits';
import { ROLE_LABEL } from './message-search-bar';
import { searchStrings } from './strings';

interface Props {
  result: SessionSearchResult;
  busy: boolean;
  active: string | null;
  canShowMore: boolean;
  onOpen(hit: SessionSearchHit): void;
  onActive(key: string): void;
  onShowMore(): void;
  /** ↑ from the first hit: back to the query field. */
  onTop(): void;
}

/** Where a hit opens: the task's timeline at its message, the match marked. */
export function hitRoute(hit: SessionSearchHit): Route {
  const mark = matchedText(hit);
  return {
    page: 'task',
    uuid: hit.uuid,
    tab: 'timeline',
    seq: hit.seq,
    view: 'history',
    ...(mark && { mark }),
  };
}
const hitHref = (hit: SessionSearchHit): string => routeHash(hitRoute(hit));

export const hitKey = (hit: Pick<SessionSearchHit, 'uuid' | 'seq'>): string =>
  `${hit.uuid}:${hit.seq}`;

/** Moves the focus among the hits with the arrow keys, Home and End. */
function onListKey(e: KeyboardEvent<HTMLElement>, onTop: () => void): void {
  if (!['ArrowDown', 'ArrowUp', 'Home', 'End', 'j', 'k'].includes(e.key)) return;
  const hits = [...e.currentTarget.querySelectorAll<HTMLAnchorElement>('a.msg-hit')];
  const at = hits.indexOf(document.activeElement as HTMLAnchorElement);
  if (at < 0) return;
  e.preventDefault();
  const down = e.key === 'ArrowDown' || e.key === 'j';
  const up = e.key === 'ArrowUp' || e.key === 'k';
  if (up && at === 0) return onTop();
  const next =
    e.key === 'Home'
      ? 0
      : e.key === 'End'
        ? hits.length - 1
        : Math.max(0, Math.min(hits.length - 1, at + (down ? 1 : -1)));
  hits[next]!.focus();
  hits[next]!.scrollIntoView({ block: 'nearest' });
}

/** The hits grouped by task: a heading per task, its hits with the match marked. */
export const SearchResults = forwardRef<HTMLDivElement, Props>(function SearchResults(
  { result, busy, active, canShowMore, onOpen, onActive, onShowMore, onTop },
  ref,
) {
  const t = useT(searchStrings);
  const groups = groupHits(result.hits);
  const summary =
    groups.length === 1
      ? t('summaryOne', { hits: result.hits.length })
      : t('summary', { hits: result.hits.length, sessions: groups.length });
  return (
    <div
      ref={ref}
      className="msg-results"
      aria-busy={busy}
      aria-label={t('results')}
      role="region"
      onKeyDown={(e) => onListKey(e, onTop)}
    >
      <p className="msg-summary" role="status" data-testid="message-search-summary">
        <span>{busy ? t('searching') : summary}</span>
        {result.more && <span className="msg-more-note"> · {t('more')}</span>}
      </p>
      {result.pending > 0 && (
        <p className="msg-pending">{t('pending', { count: result.pending })}</p>
      )}
      <ol className="msg-groups">
        {groups.map((g) => (
          <GroupView key={g.uuid} group={g} active={active} onOpen={onOpen} onActive={onActive} />
        ))}
      </ol>
      {result.more && canShowMore && (
        <button type="button" className="msg-show-more" onClick={onShowMore}>
          {t('showMore')}
        </button>
      )}
    </div>
  );
});

function GroupView({
  group,
  active,
  onOpen,
  onActive,
}: {
  group: HitGroup;
  active: string | null;
  onOpen(hit: SessionSearchHit): void;
  onActive(key: string): void;
}) {
  const t = useT(searchStrings);
  const tb = useT(browserStrings);
  const f = useFormat();
  const title = group.title?.trim() || t('untitled');
  return (
    <li className="msg-group" data-uuid={group.uuid}>
      <div className="msg-group-head">
        <span className="msg-group-title" title={title}>
          {title}
        </span>
        <span className="badge msg-agent">{agentLabel(group.agent, tb('ownAgent'))}</span>
        {group.repository && (
          <span className="msg-repo" title={group.repository}>
            {group.repository}
          </span>
        )}
        {group.latest && <span className="msg-date">{f.dateTime(group.latest)}</span>}
        <span className="msg-count">{t('hitCount', { count: group.hits.length })}</span>
      </div>
      <ol className="msg-hits">
        {group.hits.map((hit) => (
          <li key={hitKey(hit)}>
            <a
              href={hitHref(hit)}
              className="msg-hit"
              data-seq={hit.seq}
              data-active={active === hitKey(hit) || undefined}
              aria-label={t('openHit', { seq: String(hit.seq), title })}
              onFocus={() => onActive(hitKey(hit))}
              onClick={(e) => {
                e.preventDefault();
                onOpen(hit);
              }}
            >
              <span className="tv-seq">#{hit.seq}</span>
              <span className="msg-meta">
                <span className="msg-role">
                  {(SEARCH_ROLES as readonly string[]).includes(hit.role)
                    ? t(ROLE_LABEL[hit.role as SearchRole])
                    : hit.role}
                </span>
                {hit.tool && (
                  <span className="msg-tool" title={hit.tool}>
                    {hit.tool}
                  </span>
                )}
              </span>
              <Snippet hit={hit} />
            </a>
          </li>
        ))}
      </ol>
    </li>
  );
}

function Snippet({ hit }: { hit: SessionSearchHit }) {
  // Line breaks and runs of spaces fold as the browser lays the line out (white-space: normal).
  if (!hit.match) return <span className="tv-snippet">{hit.snippet}</span>;
  const [a, b] = hit.match;
  return (
    <span className="tv-snippet">
      {hit.snippet.slice(0, a)}
      <mark>{hit.snippet.slice(a, b)}</mark>
      {hit.snippet.slice(b)}
    </span>
  );
}
