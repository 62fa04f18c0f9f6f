import { diffArrays } from 'diff';
import type { DiffMessage } from '../../../../shared/api/compaction-api';

/** One row of the before → after view: a message kept, removed, added, or shown differently. */
export type AlignedRow =
  | { type: 'same'; before: DiffMessage; after: DiffMessage }
  | { type: 'changed'; before: DiffMessage; after: DiffMessage }
  | { type: 'removed'; before: DiffMessage }
  | { type: 'added'; after: DiffMessage };

/**
 * Lines the two contexts up message by message (a message is the same one when its seq is;
 * a view-only message when its role and text are), so the page word-diffs only messages
 * that changed — diffing two whole contexts word by word would be slow and unreadable.
 */
export function alignContexts(
  before: readonly DiffMessage[],
  after: readonly DiffMessage[],
): AlignedRow[] {
  const key = (m: DiffMessage): string =>
    m.seq !== null ? `seq:${m.seq}` : `view:${m.role}:${m.content}:${m.toolCalls ?? ''}`;
  const rows: AlignedRow[] = [];
  const parts = diffArrays([...before], [...after], {
    comparator: (a, b) => key(a) === key(b),
  });
  let i = 0;
  let j = 0;
  for (const part of parts) {
    const n = part.count ?? part.value.length;
    for (let k = 0; k < n; k++) {
      if (part.added) rows.push({ type: 'added', after: after[j++]! });
      else if (part.removed) rows.push({ type: 'removed', before: before[i++]! });
      else {
        const b = before[i++]!;
        const a = after[j++]!;
        const same = b.content === a.content && b.toolCalls === a.toolCalls;
        rows.push({ type: same ? 'same' : 'changed', before: b, after: a });
      }
    }
  }
  return rows;
}
