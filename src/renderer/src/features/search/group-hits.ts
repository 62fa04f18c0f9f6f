import type { SessionSearchHit } from '../../../../shared/api/search-api';

/** The hits of one session, as the results list shows them under its heading. */
export interface HitGroup {
  uuid: string;
  title: string | null;
  agent: string;
  repository: string | null;
  /** The newest timestamp among the session's hits (null when none has one). */
  latest: string | null;
  hits: SessionSearchHit[];
}

/**
 * Hits grouped by session, in the order the sessions first appear (the API sends the newest
 * session first and a session's hits in seq order, but grouping does not rely on it).
 */
export function groupHits(hits: readonly SessionSearchHit[]): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const hit of hits) {
    let group = groups.get(hit.uuid);
    if (!group) {
      group = {
        uuid: hit.uuid,
        title: hit.title,
        agent: hit.agent,
        repository: hit.repository,
        latest: null,
        hits: [],
      };
      groups.set(hit.uuid, group);
    }
    group.hits.push(hit);
    if (hit.timestamp && (!group.latest || hit.timestamp > group.latest))
      group.latest = hit.timestamp;
  }
  return [...groups.values()];
}

/** The text a hit matched, as the message has it (what the timeline marks), or null. */
export function matchedText(hit: Pick<SessionSearchHit, 'snippet' | 'match'>): string | null {
  if (!hit.match) return null;
  const text = hit.snippet.slice(hit.match[0], hit.match[1]);
  return text.trim() ? text : null;
}
