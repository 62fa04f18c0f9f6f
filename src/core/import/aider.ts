/**
 * Aider's chat history (`.aider.chat.history.md` at the repository root, appended to by
 * every run; see aider/io.py `append_chat_history`) → one task per run.
 *
 * - `# aider chat started at <time>` starts a run (local time without a zone: read as UTC).
 *   Lines before the first header are a run whose start the file does not have.
 * - `#### ` lines are what the person typed (consecutive ones are one message). A slash
 *   command (`/add`, `/diff`, …) is not a request: ignored, except `/ask`, `/code`,
 *   `/architect`, `/context` whose text is the request.
 * - `> ` lines are aider's own output (tool output, warnings): `> Tokens: 5,244 sent,
 *   604 received…` is the usage of the reply before it; the command line and
 *   "Model: …" lines name the model; the rest are counted as ignored notices.
 * - Any other text is the model's reply: one assistant message and one LLM call.
 *
 * Read line by line: only the current block is held. Keys: `o<byte offset>` of the line
 * that starts the message (stable: the file is only appended to).
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { SessionEvent, SessionFormat, SessionMeta } from './session-format';
import { realRequest } from './session-meta';
import { naiveUtcTimestamp } from './text';

const HEADER = /^# aider chat started at (.+?)\s*$/;
const REQUEST_COMMANDS = /^\/(ask|code|architect|context)\s+([\s\S]+)$/;

export function isAiderHistory(head: string, fileName: string): boolean {
  if (fileName.endsWith('.aider.chat.history.md')) return true;
  return /^# aider chat started at \d{4}-\d\d-\d\d/m.test(head);
}

export const aiderFormat: SessionFormat = {
  agent: 'aider',
  input: 'text',
  sniff: (head, fileName) => typeof head === 'string' && isAiderHistory(head, fileName),
  parse: (file) => aiderEvents(file),
};

type Block = { kind: 'user' | 'assistant' | 'notice'; offset: number; lines: string[] };

async function* aiderEvents(file: string): AsyncGenerator<SessionEvent> {
  const cwd =
    path.basename(file) === '.aider.chat.history.md' ? path.dirname(path.resolve(file)) : undefined;
  const stream = fs.createReadStream(file, { encoding: 'utf8' });
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let offset = 0;
  let block: Block | undefined;
  let run: { key: string; meta: SessionMeta; started: boolean; model?: string } | undefined;

  const newRun = (key: string, startedAt?: string): void => {
    run = {
      key,
      started: false,
      meta: { agent: 'aider', ...(cwd && { cwd }), ...(startedAt && { startedAt }) },
    };
  };

  /** Turns the finished block into events (a run's session event goes out before its first message). */
  function* flush(): Generator<SessionEvent> {
    const b = block;
    block = undefined;
    if (!b || !run) return;
    const key = `o${b.offset}`;
    if (b.kind === 'notice') {
      for (const line of b.lines) {
        const text = line.replace(/\s+$/, '');
        const tokens =
          /^Tokens: ([\d.,]+k?) sent(?:, ([\d.,]+k?) cache write)?(?:, ([\d.,]+k?) cache hit)?, ([\d.,]+k?) received/.exec(
            text,
          );
        if (tokens) {
          usageForLast = {
            input_tokens: count(tokens[1]),
            cache_creation_tokens: count(tokens[2]),
            cache_read_tokens: count(tokens[3]),
            output_tokens: count(tokens[4]),
          };
          continue;
        }
        const model = /^(?:Main model|Models?): (\S+)/.exec(text)?.[1];
        if (model) {
          run.model ??= model;
          run.meta.model ??= model;
        }
        if (text !== '') yield { kind: 'ignore', key: `${key}`, what: 'aider output line' };
      }
      return;
    }
    const raw = b.lines.join('\n').replace(/\s+$/, '');
    let content = raw;
    if (b.kind === 'user') {
      const command = REQUEST_COMMANDS.exec(raw);
      if (command) content = command[2]!;
      else if (/^\/\S+/.test(raw)) {
        yield { kind: 'ignore', key, what: 'aider slash command' };
        return;
      }
      if (!run.started) run.meta.firstRequest ??= realRequest(content);
    } else if (raw.trim() === '') return;
    if (!run.started) {
      run.started = true;
      yield { kind: 'session', key: run.key, meta: { ...run.meta } };
    }
    if (b.kind === 'user') yield { kind: 'message', key, message: { role: 'user', content } };
    else lastAssistant = { key, content, ...(run.model && { model: run.model }) };
  }

  let usageForLast: Record<string, number> | undefined;
  let lastAssistant: { key: string; content: string; model?: string } | undefined;

  /** A reply is sent once the lines after it (its Tokens line) are seen. */
  function* sendAssistant(): Generator<SessionEvent> {
    if (!lastAssistant) return;
    const a = lastAssistant;
    lastAssistant = undefined;
    const usage = usageForLast;
    usageForLast = undefined;
    yield {
      kind: 'message',
      key: a.key,
      message: { role: 'assistant', content: a.content },
      llmCall: true,
      ...(usage && { usage }),
      ...(a.model && { model: a.model }),
    };
  }

  newRun('o0');
  for await (const line of lines) {
    const lineOffset = offset;
    offset += Buffer.byteLength(line, 'utf8') + 1;
    const header = HEADER.exec(line);
    let kind: Block['kind'] | 'blank' | 'header';
    let text = line;
    if (header) kind = 'header';
    else if (line.startsWith('#### ') || line === '####') {
      kind = 'user';
      text = line.slice(5).replace(/ {2}$/, '');
    } else if (line.startsWith('> ') || line === '>') {
      kind = 'notice';
      text = line.slice(2);
    } else if (line.trim() === '') kind = 'blank';
    else kind = 'assistant';

    if (kind === 'blank') {
      // Blank lines end user and notice blocks; inside a reply they are part of it.
      if (block?.kind === 'assistant') block.lines.push('');
      else yield* flush();
      continue;
    }
    if (kind === 'header') {
      yield* flush();
      yield* sendAssistant();
      // A run's end is not written; only the last run ends when the file was last written.
      // Lines before the first header ran before it: they are dated by it.
      const next = naiveUtcTimestamp(header![1]);
      const at = run?.meta.startedAt ?? next;
      if (run?.started && at) yield { kind: 'meta', meta: { startedAt: at, endedAt: at } };
      newRun(`o${lineOffset}`, next);
      continue;
    }
    if (lineOffset === 0 && /^-\*-.*-\*-\s*$/.test(line)) {
      // An editor's file-variables line, not part of any run.
      yield { kind: 'ignore', key: 'o0', what: 'editor mode line' };
      continue;
    }
    if (block && block.kind !== kind) yield* flush();
    if (kind !== 'notice' && block === undefined) yield* sendAssistant();
    if (!block) block = { kind, offset: lineOffset, lines: [] };
    block.lines.push(text);
  }
  yield* flush();
  yield* sendAssistant();
}

/** "5,244" → 5244, "2.5k" → 2500. */
function count(value: string | undefined): number {
  if (!value) return 0;
  const v = value.replace(/,/g, '');
  const n = Number.parseFloat(v);
  if (!Number.isFinite(n)) return 0;
  return Math.round(v.endsWith('k') ? n * 1000 : n);
}
