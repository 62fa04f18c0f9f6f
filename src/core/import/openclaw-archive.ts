/**
 * OpenClaw's session files beside the transcripts (openclaw/openclaw at
 * 0849551642f081db8079b70b4cd472cd57b594dc, `src/config/sessions/artifacts.ts`):
 *
 * - `<session id>.jsonl.reset.<time>` and `<session id>.jsonl.deleted.<time>`: a whole
 *   session's transcript, renamed when the person reset it (`/new`, `/reset`: the
 *   conversation goes on in a new session) or deleted it; OpenClaw still counts them in its
 *   usage. Sessions: listed, marked with the reason and time.
 * - `<session id>.jsonl.bak.<time>`, `sessions.json.bak.<n>`: backups; not sessions.
 * - `<session id>.checkpoint.<uuid>.jsonl`: the transcript as it was before a compaction (a
 *   copy of the session's start); `<session id>.trajectory.jsonl`: a runtime trace. Not
 *   sessions of their own.
 *
 * `<time>` is an ISO time with `-` for `:` (`2026-11-20T10-00-00.000Z`).
 */
const ARCHIVE =
  /^(.*\.jsonl)\.(reset|deleted)\.(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}(?:\.\d{3})?)Z$/;
const CHECKPOINT =
  /\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

export interface OpenClawArchive {
  /** The transcript's path before OpenClaw renamed it. */
  original: string;
  reason: 'reset' | 'deleted';
  /** When it was archived (ISO). */
  at: string;
}

/** A reset or deleted session's transcript, or undefined. */
export function openClawArchive(file: string): OpenClawArchive | undefined {
  const m = ARCHIVE.exec(file);
  if (!m) return undefined;
  return {
    original: m[1]!,
    reason: m[2] as 'reset' | 'deleted',
    at: `${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`,
  };
}

/** Whether a file in an agent's `sessions/` folder is a session transcript (or an archived one). */
export function isOpenClawTranscript(name: string): boolean {
  if (openClawArchive(name)) return true;
  return name.endsWith('.jsonl') && !CHECKPOINT.test(name) && !name.endsWith('.trajectory.jsonl');
}
