import fs from 'node:fs';
import path from 'node:path';
import { ContextStore } from '../../src/core/store/context-store';
import { exportTasks, type ExportFormat } from '../../src/core/export';
import { importPaths } from '../../src/core/import';
import { folderBytes, sharedBigTask } from '../lib/big-task';
import { mb, mbps, ratio, rate } from '../lib/format';
import { median, pairedRatio } from '../lib/stats';
import { row, type BenchContext, type BenchGroup, type Row } from '../lib/types';

type Way = 'copy' | ExportFormat | 'import';

export const transferGroup: BenchGroup = {
  id: 'transfer',
  title: 'Export and import vs a raw copy of the task folder',
  about:
    'The shared ~100 MB task (messages.jsonl, current.jsonl, tools.jsonl and the rest) exported with `exportTasks` as a zip archive (every file, hashed and deflated, plus a manifest), a Markdown transcript, OpenAI messages JSON and a redacted HTML page (all of the full history, from messages.jsonl), and the archive imported into a fresh contexts folder with `importPaths` (entries checked, extracted while hashed, committed when every checksum matches, message index rebuilt). The baseline is a raw recursive copy of the task folder (`fs.promises.cp`). Throughput is the bytes each one reads per second: the whole folder for the archive, the import and the copy; messages.jsonl for Markdown, OpenAI and HTML. All runs of one round are back to back.',
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const shared = await sharedBigTask(ctx);
    const store = ContextStore.open(shared.root, { recover: false });
    const taskDir = store.taskPath(store.requireTask(shared.uuid));
    const folder = folderBytes(taskDir);
    const messagesBytes = fs.statSync(path.join(taskDir, 'messages.jsonl')).size;
    const input: Record<Way, number> = {
      copy: folder,
      archive: folder,
      markdown: messagesBytes,
      openai: messagesBytes,
      html: messagesBytes,
      import: folder,
    };
    const times: Record<Way, number[]> = {
      copy: [],
      archive: [],
      markdown: [],
      openai: [],
      html: [],
      import: [],
    };
    const outputs: Partial<Record<Way, number>> = {};
    const zip = path.join(ctx.tmp, 'task.zip');
    for (let i = 0; i < ctx.runs; i++) {
      const order: Way[] =
        i % 2 === 0
          ? ['copy', 'archive', 'import', 'markdown', 'openai', 'html']
          : ['html', 'openai', 'markdown', 'archive', 'import', 'copy'];
      for (const way of order) {
        const started = performance.now();
        if (way === 'copy') {
          const dst = path.join(ctx.tmp, 'copy');
          await fs.promises.cp(taskDir, dst, { recursive: true });
          times.copy.push(performance.now() - started);
          fs.rmSync(dst, { recursive: true, force: true });
        } else if (way === 'import') {
          const importRoot = path.join(ctx.tmp, `import-${i}`);
          const target = ContextStore.open(importRoot);
          const result = await importPaths(target, [zip]);
          times.import.push(performance.now() - started);
          const imported = result.results[0]?.tasks.length ?? 0;
          target.close();
          fs.rmSync(importRoot, { recursive: true, force: true });
          if (imported !== 1 || result.failed.length > 0) {
            throw new Error(`import failed: ${JSON.stringify(result.failed)}`);
          }
        } else {
          const out =
            way === 'archive'
              ? zip
              : path.join(ctx.tmp, `task.${{ markdown: 'md', openai: 'json', html: 'html' }[way]}`);
          if (way === 'archive') fs.rmSync(zip, { force: true });
          const result = await exportTasks(store, {
            uuids: [shared.uuid],
            format: way,
            output: out,
            // A page is redacted by default: measured as people get it.
            ...(way === 'html' && { redaction: {} }),
          });
          times[way].push(performance.now() - started);
          outputs[way] = result.files[0]?.bytes ?? 0;
          if (way !== 'archive') fs.rmSync(out, { force: true });
        }
      }
    }
    store.close();
    const throughput = (way: Way): number[] => times[way].map((t) => rate(input[way], t));
    const copyRate = mbps(folder, median(times.copy));
    const labels: Record<Exclude<Way, 'copy'>, string> = {
      archive: `export as archive (${mb(folder)} folder → ${mb(outputs.archive ?? 0)} zip)`,
      markdown: `export as Markdown (${mb(messagesBytes)} messages.jsonl → ${mb(outputs.markdown ?? 0)})`,
      openai: `export as OpenAI JSON (${mb(messagesBytes)} messages.jsonl → ${mb(outputs.openai ?? 0)})`,
      html: `export as a redacted HTML page (${mb(messagesBytes)} messages.jsonl → ${mb(outputs.html ?? 0)}; the files read once for secrets, then the page made twice: counted, then written)`,
      import: `import the archive (${mb(folder)} unpacked)`,
    };
    for (const way of ['archive', 'markdown', 'openai', 'html', 'import'] as const) {
      rows.push(
        row(
          labels[way],
          mbps(input[way], median(times[way])),
          `${copyRate} (raw copy of the folder)`,
          ratio(pairedRatio(throughput(way), throughput('copy'))),
        ),
      );
      ctx.log(`  ${way}: ${mbps(input[way], median(times[way]))}`);
    }
    notes.push(
      "No goal is set for these in DESIGN.md §7; the ratio (our throughput ÷ the raw copy's) shows what the format costs. The archive deflates every file and computes a SHA-256 of each on the way; the import inflates, hashes, checks and rebuilds the message index; the raw copy does none of that (and on Linux copies inside the kernel).",
    );
    return { rows, notes };
  },
};
