/**
 * One of the concurrent writers of the tasks.db benchmark: opens the shared contexts root
 * the way a task process does and adds to the counters of tasks (TaskRepository.addStats,
 * one BEGIN IMMEDIATE transaction each), as task processes do after every message.
 * Prints "ready", waits for "go" on stdin so every writer starts at once, then prints a
 * JSON line with its counts and timings.
 *
 * Usage: counter-writer.ts ROOT UUID_FILE UPDATES OFFSET
 */
import fs from 'node:fs';
import { ContextStore } from '../../src/core/store/context-store';

const [root, uuidFile, updatesText, offsetText] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];
const uuids = fs.readFileSync(uuidFile, 'utf8').split('\n').filter(Boolean);
const updates = Number(updatesText);
const offset = Number(offsetText);
const store = ContextStore.open(root, { recover: false });

process.stdout.write('ready\n');
await new Promise<void>((resolve) => {
  process.stdin.once('data', () => resolve());
});

let done = 0;
let busy = 0;
let failed = 0;
let firstError = '';
const start = Date.now();
const started = performance.now();
for (let i = 0; i < updates; i++) {
  try {
    store.repo.addStats(uuids[(offset + i * 7) % uuids.length]!, {
      llm_calls: 1,
      tool_calls: 2,
      usage: { input_tokens: 100, output_tokens: 20 },
    });
    done++;
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY')) busy++;
    else failed++;
    if (!firstError) firstError = `${code} ${(err as Error).message}`;
  }
}
const ms = performance.now() - started;
store.close();
process.stdout.write(
  `${JSON.stringify({ done, busy, failed, firstError, ms, start, end: Date.now() })}\n`,
);
process.exit(0);
