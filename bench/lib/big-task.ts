import fs from 'node:fs';
import path from 'node:path';
import type { MessageRecord, ToolCall, ToolRecord } from '../../src/shared/task-types';
import { ContextStore } from '../../src/core/store/context-store';
import { toCurrent } from '../../src/core/store/message-store';
import { loadCorpora, numberedLines, textOfSize } from './corpus';
import { pick, rng } from './stats';

/**
 * A large task written through the real store (ContextStore → TaskContextManager.addMessage
 * and recordToolCall), shaped like a coding agent's session: assistant turns with tool
 * calls, and tool results of every kind the built-in tools produce — numbered file
 * contents, grep hits, command output with exit codes and errors, JSON, directory
 * listings — each at most ~50 KiB as the real tools cut them, with Japanese documents and
 * requests mixed in. Nothing is compacted, so current.jsonl holds it all.
 *
 * Only the first ~10 MB go through the store (its o200k count of every message would make
 * the fixture take a minute); the session after the first two messages is then repeated
 * until the target size, each copy renumbered (seq, tool-call ids) exactly as the store
 * would have written it, and the task is reopened so the offset index and statistics are
 * rebuilt from the files.
 */
export interface BigTask {
  root: string;
  uuid: string;
  dir: string;
  messages: number;
  messagesBytes: number;
  currentBytes: number;
  folderBytes: number;
  buildMs: number;
}

export function folderBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? folderBytes(p) : fs.statSync(p).size;
  }
  return total;
}

export async function buildBigTask(
  dir: string,
  targetBytes: number,
  repoRoot: string,
): Promise<BigTask> {
  const started = performance.now();
  const { code, english, japanese } = loadCorpora(repoRoot);
  const random = rng(42);
  const root = path.join(dir, 'contexts');
  const store = ContextStore.open(root);
  const task = store.createTask({
    title: 'Refactor the request pipeline and fix the flaky parser tests',
    prompt: 'Refactor the request pipeline and fix the flaky parser tests.',
    key: {
      task_source: 'github',
      owner: 'acme',
      repo: 'workbench',
      task_type: 'issue',
      task_id: '4242',
      user: 'alice',
    },
    model: 'gpt-4o',
    llm_provider: 'openai',
    context_length: 128_000,
  });
  task.addMessage({
    role: 'system',
    content: 'You are a careful coding agent working in the repository.',
  });
  task.addMessage({
    role: 'user',
    content:
      'Refactor the request pipeline and fix the flaky parser tests. Run the test suite when done.',
  });
  const files = [
    'src/core/llm/request-file.ts',
    'src/core/jsonl/line-reader.ts',
    'src/core/store/message-store.ts',
    'test/parser.test.ts',
    'docs/storage.md',
    'package.json',
  ];
  let call = 0;
  let turn = 0;
  const seedBytes = Math.min(targetBytes, 10 * 1024 * 1024);
  while (fs.statSync(task.messages.currentPath).size < seedBytes) {
    turn++;
    if (turn % 25 === 0) {
      const ja = japanese.length > 0 && random() < 0.5;
      task.addMessage({
        role: 'user',
        content: textOfSize(ja ? japanese : english, 200 + random() * 600, random),
      });
    }
    const calls: { call: ToolCall; output: string; status: 'success' | 'error' }[] = [];
    const n = 1 + Math.floor(random() * 3);
    for (let i = 0; i < n; i++) {
      call++;
      const kind = random();
      let name: string;
      let args: Record<string, unknown>;
      let output: string;
      let status: 'success' | 'error' = 'success';
      if (kind < 0.45) {
        name = 'read_file';
        args = { path: pick(random, files) };
        const source =
          japanese.length > 0 && random() < 0.1 ? japanese : random() < 0.2 ? english : code;
        output = numberedLines(textOfSize(source, 4_000 + random() * 44_000, random));
      } else if (kind < 0.6) {
        name = 'grep';
        args = { pattern: pick(random, ['writeRequestFile', 'TODO', 'offsetOf', 'throw new']) };
        output = textOfSize(code, 1_000 + random() * 15_000, random)
          .split('\n')
          .map((l, j) => `${pick(random, files)}:${10 + j * 7}:${l}`)
          .join('\n');
      } else if (kind < 0.85) {
        name = 'run_command';
        args = {
          command: pick(random, [
            'npm test',
            'npx tsc --noEmit',
            'npx eslint .',
            'git diff --stat',
          ]),
        };
        const failed = random() < 0.3;
        status = failed ? 'error' : 'success';
        const body = textOfSize(code, 500 + random() * 20_000, random);
        output = failed
          ? `${body}\nError: expected 3 to equal 4\n    at parser.test.ts:41:17\n[exit code 1]`
          : `${body}\n[exit code 0]`;
      } else if (kind < 0.95) {
        name = 'run_command';
        args = { command: 'npx vitest run --reporter=json' };
        const results = Array.from({ length: 20 + Math.floor(random() * 150) }, (_, j) => ({
          name: `test ${j}: ${textOfSize(english, 40, random).slice(0, 60)}`,
          status: random() < 0.9 ? 'passed' : 'failed',
          duration: Math.round(random() * 500),
          id: `t-${call}-${j}`,
          metadata: { retries: 0, file: pick(random, files) },
        }));
        output = JSON.stringify({ numTotalTests: results.length, testResults: results }, null, 2);
      } else {
        name = 'list_dir';
        args = { path: 'src' };
        output = Array.from(
          { length: 20 + Math.floor(random() * 200) },
          (_, j) => `src/module-${j}.ts\t${Math.floor(random() * 9000)} bytes`,
        ).join('\n');
      }
      calls.push({
        call: {
          id: `call_${call}`,
          type: 'function',
          function: { name, arguments: JSON.stringify(args) },
        },
        output,
        status,
      });
    }
    task.addMessage({
      role: 'assistant',
      content: random() < 0.6 ? textOfSize(english, 100 + random() * 700, random) : null,
      tool_calls: calls.map((c) => c.call),
      usage: {
        input_tokens: 1000 + turn * 100,
        output_tokens: 120,
        cache_creation_tokens: 0,
        cache_read_tokens: 0,
        total_tokens: 1120 + turn * 100,
      },
    });
    task.recordLlmCall({ input_tokens: 1000 + turn * 100, output_tokens: 120 });
    for (const c of calls) {
      task.recordToolCall({
        tool: c.call.function.name,
        args: JSON.parse(c.call.function.arguments) as unknown,
        result: c.status === 'success' ? c.output : null,
        status: c.status,
        error: c.status === 'error' ? c.output.slice(-200) : null,
        duration_ms: 50 + random() * 3000,
        tool_call_id: c.call.id,
      });
      task.addMessage({
        role: 'tool',
        content: c.output,
        tool_call_id: c.call.id,
        tool_name: c.call.function.name,
      });
    }
  }
  task.close();
  const added = repeatSession(task.dir, targetBytes);
  const reopened = store.openTask(task.uuid);
  store.repo.addStats(task.uuid, { llm_calls: added.llmCalls, tool_calls: added.toolCalls });
  reopened.addMessage({
    role: 'assistant',
    content: 'The pipeline is refactored and the parser tests pass.',
  });
  const messages = reopened.messages.count;
  // Paused: a task no process runs, which compaction (maintenance) and export accept.
  await reopened.stop();
  const taskDir = reopened.dir;
  store.close();
  return {
    root,
    uuid: task.uuid,
    dir: taskDir,
    messages,
    messagesBytes: fs.statSync(path.join(taskDir, 'messages.jsonl')).size,
    currentBytes: fs.statSync(path.join(taskDir, 'current.jsonl')).size,
    folderBytes: folderBytes(taskDir),
    buildMs: performance.now() - started,
  };
}

/** Appends copies of the session (every message after the first two) until current.jsonl reaches `targetBytes`. */
function repeatSession(dir: string, targetBytes: number): { llmCalls: number; toolCalls: number } {
  const messagesFile = path.join(dir, 'messages.jsonl');
  const records = fs
    .readFileSync(messagesFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as MessageRecord)
    .slice(2);
  const tools = fs
    .readFileSync(path.join(dir, 'tools.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ToolRecord);
  let seq = records.length + 2;
  let toolSeq = tools.length;
  const added = { llmCalls: 0, toolCalls: 0 };
  const currentFile = path.join(dir, 'current.jsonl');
  for (let copy = 1; fs.statSync(currentFile).size < targetBytes; copy++) {
    const lines: string[] = [];
    const current: string[] = [];
    for (const r of records) {
      const record: MessageRecord = {
        ...r,
        seq: ++seq,
        ...(r.tool_calls && {
          tool_calls: r.tool_calls.map((c) => ({ ...c, id: `${c.id}_${copy}` })),
        }),
        ...(r.tool_call_id !== undefined && { tool_call_id: `${r.tool_call_id}_${copy}` }),
      };
      lines.push(JSON.stringify(record));
      if (!record.history_only) current.push(JSON.stringify(toCurrent(record)));
    }
    fs.appendFileSync(messagesFile, `${lines.join('\n')}\n`);
    fs.appendFileSync(currentFile, `${current.join('\n')}\n`);
    const toolLines = tools.map((t) =>
      JSON.stringify({
        ...t,
        seq: ++toolSeq,
        ...(t.tool_call_id !== undefined && { tool_call_id: `${t.tool_call_id}_${copy}` }),
      }),
    );
    fs.appendFileSync(path.join(dir, 'tools.jsonl'), `${toolLines.join('\n')}\n`);
    added.llmCalls += records.filter((r) => r.role === 'assistant').length;
    added.toolCalls += tools.length;
  }
  // The index is derived: opening the task rebuilds it from messages.jsonl.
  fs.rmSync(`${messagesFile}.idx`, { force: true });
  return added;
}

/** The 100 MB task the request, compaction, export and window groups share. */
export function sharedBigTask(ctx: {
  shared<T>(key: string, build: (dir: string) => Promise<T>): Promise<T>;
  repoRoot: string;
}): Promise<BigTask> {
  return ctx.shared('task-100mb', (dir) => buildBigTask(dir, 100 * 1024 * 1024, ctx.repoRoot));
}
