import type { RewindPreview } from '../../shared/api/compaction-api';
import { activeRecords } from './compaction-record';
import { viewAfter } from './compaction-diff';
import { readView } from './read-view';
import { repairToolPairs } from './tool-pairing';
import { entrySeq } from './view';

/**
 * What `rewindTo(task, seq)` would do, read-only (the UI confirms a rewind with it): the
 * messages of the current context after `seq`, and the compactions it would undo.
 */
export function previewRewind(dir: string, seq: number): RewindPreview {
  const active = activeRecords(dir).records;
  const first = active.findIndex((r) => r.through_seq >= seq);
  const { view: now, lastSeq } = readView(dir);
  // The rewind undoes those compactions first, then hides what follows seq in what is left.
  const view =
    first < 0 ? now : repairToolPairs(viewAfter(dir, active[first - 1], Number.MAX_SAFE_INTEGER));
  const hidden = view.filter((e) => (entrySeq(e) ?? 0) > seq);
  const seqs = hidden.map(entrySeq).filter((s): s is number => s !== undefined);
  return {
    hiddenCount: seqs.length,
    firstHiddenSeq: seqs.length ? Math.min(...seqs) : null,
    lastHiddenSeq: seqs.length ? Math.max(...seqs) : null,
    hiddenTokens: hidden.reduce((n, e) => n + e.tokens, 0),
    undone: first < 0 ? [] : active.slice(first).map((r) => r.id),
    lastSeq,
  };
}
