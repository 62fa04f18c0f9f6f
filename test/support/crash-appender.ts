/**
 * A task process that appends messages until it is killed. Each content carries its own
 * sha256 so the parent can prove every complete line survived intact.
 * Usage: crash-appender.ts ROOT UUID MODE   (MODE: loop | torn)
 * `torn` writes 20 messages, then half of one more line straight to messages.jsonl, and waits.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { ContextStore } from '../../src/core/store/context-store';

const [root, uuid, mode] = process.argv.slice(2);
const store = ContextStore.open(root!);
const task = store.createTask({ uuid: uuid!, title: 'crash test' });

const WORDS = [
  'read',
  'file',
  'patch',
  'error',
  'test',
  'build',
  'src/app.ts',
  'ok',
  '42',
  'コンテキスト',
];

function content(i: number): string {
  // Word-like text of varied length (up to ~200 KB), so lines of every size get cut.
  const bytes = crypto.randomBytes(1 + ((i * 7919) % 30_000));
  const pad = Array.from(bytes, (b) => WORDS[b % WORDS.length]).join(' ');
  const sha = crypto.createHash('sha256').update(pad).digest('hex');
  return JSON.stringify({ i, pad, sha });
}

if (mode === 'torn') {
  for (let i = 1; i <= 20; i++) task.addMessage({ role: 'user', content: content(i) });
  const line = JSON.stringify({ seq: 21, role: 'user', content: content(21) });
  fs.appendFileSync(
    path.join(task.dir, 'messages.jsonl'),
    line.slice(0, Math.floor(line.length / 2)),
  );
  process.stdout.write('ready\n');
  setInterval(() => undefined, 1000);
} else {
  process.stdout.write('ready\n');
  for (let i = 1; ; i++)
    task.addMessage({ role: i % 2 ? 'user' : 'assistant', content: content(i) });
}
