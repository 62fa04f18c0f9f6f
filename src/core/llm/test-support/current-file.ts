import fs from 'node:fs';
import path from 'node:path';
import type { CurrentMessage } from '../../../shared/task-types';

/** Writes `messages` as a current.jsonl in `dir` (raw strings are written as given). */
export function writeCurrent(dir: string, messages: (CurrentMessage | string)[]): string {
  const file = path.join(dir, 'current.jsonl');
  const lines = messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)));
  fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  return file;
}

const SAMPLES = [
  'ASCII text with "quotes", back\\slashes and\ttabs\nand newlines',
  '日本語のテキスト：ファイルを読み込んで、バグを修正してください。',
  'emoji 😀🎉👩‍👩‍👧 and combining é, ß, 中文 🙂',
  '\u0000 control \u001f chars \u2028 separators \u2029',
];

/** A varied message for line `i`: every role, tool calls, tool results, multi-byte text. */
export function sampleMessage(i: number, pad = 0): CurrentMessage {
  const text = `${i}: ${SAMPLES[i % SAMPLES.length]}${'x'.repeat(pad)}`;
  switch (i % 5) {
    case 0:
      return { role: 'user', content: text };
    case 1:
      return {
        role: 'assistant',
        content: i % 2 === 0 ? text : null,
        tool_calls: [
          {
            id: `call_${i}`,
            type: 'function',
            function: {
              name: 'read_file',
              arguments: JSON.stringify({ path: `src/${i}.ts`, note: text.slice(0, 40) }),
            },
          },
        ],
      };
    case 2:
      return { role: 'tool', content: text, tool_name: 'read_file', tool_call_id: `call_${i - 1}` };
    case 3:
      return { role: 'assistant', content: text };
    default:
      return { role: 'system', content: text };
  }
}

/**
 * Writes a current.jsonl of about `bytes` bytes from sampleMessage lines, a few lines per
 * write so that making a big file does not itself use much memory. Returns the line count.
 */
export function writeLargeCurrent(file: string, bytes: number, pad: number): number {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let lines = 0;
  try {
    while (written < bytes) {
      const batch: string[] = [];
      for (let k = 0; k < 16; k++) batch.push(`${JSON.stringify(sampleMessage(lines++, pad))}\n`);
      const data = Buffer.from(batch.join(''));
      fs.writeSync(fd, data);
      written += data.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return lines;
}
