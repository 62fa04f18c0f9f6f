/**
 * A fact is a concrete piece of evidence an agent needs to carry on after its older
 * messages leave the context: the file it wrote, the command that proved something and how
 * it ended, the error line, the measured number, the name it works with, the URL, the
 * user's own words. Summaries keep conclusions; facts are what a summary tends to drop.
 */
import type { FactKind } from '../../shared/fact-kinds';

export {
  FACT_KINDS,
  FACT_KIND_LABELS,
  SCORED_KINDS,
  type FactKind,
  type KindScore,
} from '../../shared/fact-kinds';

export interface Fact {
  kind: FactKind;
  /** The text that has to survive verbatim for the fact to count as kept. */
  text: string;
  /** A short note shown beside it: `exit 1`, `edited 3×`, the command an error came from. */
  detail?: string;
  /** How often the span mentions it (re-mentions make it matter for carrying on). */
  mentions: number;
  /** Position of its last mention in the span, 0..1 (newer facts describe the current state). */
  recency: number;
  /** A file the agent wrote, or a command that failed / an error line. */
  written?: boolean;
  failed?: boolean;
  /**
   * The agent typed it itself (a tool-call argument value, its own text): such a fact is
   * needed again after a compaction 3.7× as often as one of the span in general.
   */
  typed?: boolean;
  /** Found only in what tools showed or the user wrote (a name in a file read, say). */
  seen?: boolean;
}
