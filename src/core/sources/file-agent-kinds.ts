import os from 'node:os';
import path from 'node:path';
import type { JsonlSessionAgent } from '../import/jsonl-session';
import { ampFormat } from '../import/amp';
import { continueFormat } from '../import/continue';
import { copilotCliAgentFormat } from '../import/copilot-cli';
import { cursorTranscriptFormat } from '../import/cursor-text';
import { droidAgentFormat } from '../import/droid';
import { openClawAgentFormat, piAgentFormat } from '../import/pi';
import { isOpenClawTranscript, openClawArchive } from '../import/openclaw-archive';
import { qwenCodeAgentFormat } from '../import/qwen-code';
import { jsonlSessionMapper } from './jsonl-session-mapper';
import type { SourceKind } from './source-kinds';

/**
 * The agents that keep each session in a file of its own (GitHub Copilot CLI, Cursor, Qwen
 * Code, Amp, Pi, OpenClaw, Continue, Factory Droid): their folders and layouts. JSON Lines
 * files are followed line by line through the agent's converter (jsonl-session-mapper.ts);
 * whole documents are read again as they are rewritten (source-kinds.ts, documentReader).
 * Registered by source-kinds.ts.
 */
function home(env: NodeJS.ProcessEnv): string {
  return env.HOME ?? os.homedir();
}

function jsonlKind(
  agent: JsonlSessionAgent,
  label: string,
  kind: Omit<SourceKind, 'id' | 'label' | 'reader'>,
): SourceKind {
  return {
    id: agent.agent,
    label,
    ...kind,
    reader: { mode: 'jsonl', mapper: jsonlSessionMapper(agent) },
  };
}

export const FILE_AGENT_KINDS: SourceKind[] = [
  jsonlKind(copilotCliAgentFormat, 'Copilot CLI', {
    defaultFolders: (env) => [
      path.join(env.COPILOT_HOME ?? path.join(home(env), '.copilot'), 'session-state'),
    ],
    // <session id>/events.jsonl (workspace.yaml, plan.md and files/ beside it)
    matches: (relative) => /^[^/]+\/events\.jsonl$/.test(relative),
    depth: 2,
  }),
  jsonlKind(qwenCodeAgentFormat, 'Qwen Code', {
    // projects/<project>/chats/<session id>.jsonl; releases before 0.5 kept tmp/<hash>/chats/
    defaultFolders: (env) => [
      path.join(home(env), '.qwen', 'projects'),
      path.join(home(env), '.qwen', 'tmp'),
    ],
    matches: (relative) => /^[^/]+\/chats\/[^/]+\.jsonl$/.test(relative),
    depth: 3,
  }),
  {
    id: 'cursor',
    label: 'Cursor',
    defaultFolders: (env) => [path.join(home(env), '.cursor', 'projects')],
    // <project>/agent-transcripts/<id>/<id>.jsonl (earlier: agent-transcripts/<id>.jsonl),
    // and the plain-text agent-transcripts/<id>.txt
    matches: (relative) =>
      /^[^/]+\/agent-transcripts\/(?:[^/]+\/)?[^/]+\.(?:jsonl|txt)$/.test(relative),
    depth: 4,
    // No times per message: read whole on each change, so the file's own times stand in
    // for them as on `cwb import` (session-document.ts).
    reader: { mode: 'document', parse: (file) => cursorTranscriptFormat.parse(file) },
  },
  jsonlKind(droidAgentFormat, 'Factory Droid', {
    defaultFolders: (env) => [path.join(home(env), '.factory', 'sessions')],
    // <project>/<session id>.jsonl (<session id>.settings.json beside it); older: <session id>.jsonl
    matches: (relative) => /^(?:[^/]+\/)?[^/]+\.jsonl$/.test(relative),
    depth: 2,
  }),
  {
    id: 'amp',
    label: 'Amp',
    defaultFolders: (env) => [
      path.join(env.XDG_DATA_HOME ?? path.join(home(env), '.local', 'share'), 'amp', 'threads'),
    ],
    // T-<id>.json, rewritten whole on every change
    matches: (relative) => /^T-[^/]+\.json$/.test(relative),
    depth: 1,
    reader: { mode: 'document', parse: (file) => ampFormat.parse(file) },
  },
  {
    id: 'continue',
    label: 'Continue',
    defaultFolders: (env) => [
      path.join(env.CONTINUE_GLOBAL_DIR ?? path.join(home(env), '.continue'), 'sessions'),
    ],
    // <session id>.json; sessions.json is the list of them
    matches: (relative) => /^[^/]+\.json$/.test(relative) && relative !== 'sessions.json',
    depth: 1,
    reader: { mode: 'document', parse: (file) => continueFormat.parse(file) },
  },
  jsonlKind(piAgentFormat, 'Pi', {
    defaultFolders: (env) => [
      path.join(env.PI_CODING_AGENT_DIR ?? path.join(home(env), '.pi', 'agent'), 'sessions'),
    ],
    // --<working directory>--/<time>_<session id>.jsonl
    matches: (relative) => /^[^/]+\/[^/]+\.jsonl$/.test(relative),
    depth: 2,
  }),
  jsonlKind(openClawAgentFormat, 'OpenClaw', {
    defaultFolders: (env) => [
      path.join(env.OPENCLAW_STATE_DIR ?? path.join(home(env), '.openclaw'), 'agents'),
    ],
    // <agent id>/sessions/<session id>.jsonl (sessions.json beside them is the index), and
    // the transcripts of sessions reset or deleted, `<session id>.jsonl.reset.<time>`: the
    // file renamed, so its row and tasks go on (openclaw-archive.ts)
    matches: (relative) => {
      const m = /^[^/]+\/sessions\/([^/]+)$/.exec(relative);
      return m !== null && isOpenClawTranscript(m[1]!);
    },
    depth: 3,
    movedFrom: (file) => openClawArchive(file)?.original,
  }),
];
