import fs from 'node:fs';
import path from 'node:path';
import { MessageStore, type NewMessage } from '../../src/core/store/message-store';
import { ContextStore } from '../../src/core/store/context-store';
import { countO200k } from '../../src/core/tokens/o200k';
import { loadCorpora, numberedLines, textOfSize } from '../lib/corpus';
import { count, mb, ratio } from '../lib/format';
import { median, pairedRatio, rng } from '../lib/stats';
import { row, type BenchContext, type BenchGroup, type Row } from '../lib/types';

/** A mix like an agent's: short assistant turns with tool calls, tool results of a few KiB. */
function messageMix(repoRoot: string, n: number): NewMessage[] {
  const { code, english } = loadCorpora(repoRoot);
  const random = rng(7);
  const out: NewMessage[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      out.push({
        role: 'assistant',
        content: textOfSize(english, 80 + random() * 400, random),
        tool_calls: [
          {
            id: `call_${i}`,
            type: 'function',
            function: { name: 'read_file', arguments: `{"path":"src/file-${i % 50}.ts"}` },
          },
        ],
      });
    } else {
      out.push({
        role: 'tool',
        content: numberedLines(textOfSize(code, 500 + random() * 7_000, random)),
        tool_call_id: `call_${i - 1}`,
        tool_name: 'read_file',
      });
    }
  }
  return out;
}

type Way = 'store' | 'task' | 'raw';

export const appendGroup: BenchGroup = {
  id: 'append',
  title: 'Appending messages',
  about:
    'Messages appended one by one, as the agent loop does, with the default durability (a `write` per line, no flush) and with `durability: fsync` (`fdatasync` after every line). `MessageStore.append` assigns the seq, counts tokens (seed estimate and o200k), writes the line to messages.jsonl and its projection to current.jsonl, and appends the offset to the index; `TaskContextManager.addMessage` adds the tasks.db counter update (one `BEGIN IMMEDIATE` transaction per message). The baseline writes the same JSON lines to one file with `fs.writeSync` (plus `fdatasync` in the fsync case): no token counting, no second file, no index, no database. The mix alternates assistant turns with a tool call (~0.3 KiB) and tool results (0.5–7.5 KiB), ~2.3 KiB per message on average.',
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const plans = [
      { durability: 'default', fsync: false, n: 1500 },
      { durability: 'fsync', fsync: true, n: 150 },
    ] as const;
    const mix = messageMix(ctx.repoRoot, 1500);
    for (const plan of plans) {
      const messages = mix.slice(0, plan.n);
      const lineBytes = messages.reduce((s, m) => s + Buffer.byteLength(JSON.stringify(m)) + 1, 0);
      const times: Record<Way, number[]> = { store: [], task: [], raw: [] };
      for (let i = 0; i < ctx.runs; i++) {
        const order: Way[] = i % 2 === 0 ? ['store', 'task', 'raw'] : ['raw', 'task', 'store'];
        for (const way of order) {
          const dir = path.join(ctx.tmp, `${way}-${i}`);
          fs.mkdirSync(dir, { recursive: true });
          if (way === 'store') {
            const store = MessageStore.open(dir, { fsync: plan.fsync });
            const started = performance.now();
            for (const m of messages) store.append(m);
            times.store.push(performance.now() - started);
            store.close();
          } else if (way === 'task') {
            const contexts = ContextStore.open(path.join(dir, 'contexts'), { fsync: plan.fsync });
            const task = contexts.createTask({ title: 'append bench' });
            const started = performance.now();
            for (const m of messages) task.addMessage(m);
            times.task.push(performance.now() - started);
            task.close();
            contexts.close();
          } else {
            const fd = fs.openSync(path.join(dir, 'raw.jsonl'), 'a');
            const started = performance.now();
            for (const m of messages) {
              fs.writeSync(fd, `${JSON.stringify(m)}\n`);
              if (plan.fsync) fs.fdatasyncSync(fd);
            }
            times.raw.push(performance.now() - started);
            fs.closeSync(fd);
          }
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }
      const perSecond = (ms: number): string => `${count((plan.n / ms) * 1000)} msg/s`;
      const label = `${plan.n.toLocaleString('en-US')} messages (${mb(lineBytes)}), durability ${plan.durability}`;
      rows.push(
        row(
          `MessageStore.append, ${label}`,
          perSecond(median(times.store)),
          `${perSecond(median(times.raw))} (raw writeSync)`,
          ratio(pairedRatio(times.raw, times.store)),
        ),
        row(
          `TaskContextManager.addMessage (+ tasks.db counter), ${label}`,
          perSecond(median(times.task)),
          `${perSecond(median(times.raw))} (raw writeSync)`,
          ratio(pairedRatio(times.raw, times.task)),
        ),
      );
      ctx.log(
        `  ${plan.durability}: store ${perSecond(median(times.store))}, task ${perSecond(median(times.task))}`,
      );
    }
    // Where the time of an append goes: the o200k count alone, on the same messages.
    const tokenTimes: number[] = [];
    for (let i = 0; i < ctx.runs; i++) {
      const started = performance.now();
      for (const m of mix) countO200k(m.content ?? '');
      tokenTimes.push(performance.now() - started);
    }
    notes.push(
      `Counting o200k tokens of the same ${mix.length.toLocaleString('en-US')} messages alone takes ${median(tokenTimes).toFixed(0)} ms (${count((mix.length / median(tokenTimes)) * 1000)} msg/s): most of an append with the default durability is the tokenizer, not the file system.`,
      'With fsync every message costs two `fdatasync` calls (messages.jsonl and current.jsonl; the index is derived and repaired on open, so it is not flushed), against one for the baseline. The figure depends on the disk under the scratch folder (here a virtual disk).',
      "The ratio is our throughput ÷ the raw write's. No goal: nothing in DESIGN.md §7 sets one.",
    );
    return { rows, notes };
  },
};
