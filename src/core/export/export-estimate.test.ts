import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { compactTask } from '../compaction/task-compaction';
import { defaultConfig } from '../config/app-config';
import { importPaths } from '../import';
import { ContextStore } from '../store/context-store';
import { estimateExport } from './export-estimate';
import { exportTasks, EXPORT_FORMATS, type ExportFormat } from './export-tasks';

/**
 * The export dialog's size: estimated from samples of the files, checked against the bytes
 * each export really writes, for every format and scope, on real transcripts (one larger
 * than what is read of it, so the sampled windows are what counts).
 */
const tempDir = useTempDir();
let root: string;
let store: ContextStore;
let uuids: string[];
/** The Claude Code session itself (its sub-agents are tasks of their own). */
let compacted: string;

beforeAll(async () => {
  // One store for the file: useTempDir's folders last one test.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-estimate-'));
  store = ContextStore.open(path.join(root, 'contexts'));
  const run = await importPaths(store, [
    realFixture('codex'),
    realFixture('claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
    realFixture('gemini-cli', 'session-2025-12-30T01-16-3f9ce747.json'),
    realFixture('openhands', 'basic.json'),
  ]);
  expect(run.failed).toEqual([]);
  uuids = run.results.flatMap((r) => r.tasks.map((t) => t.uuid));
  compacted = run.results[1]!.tasks.find((t) => t.parent_uuid === null)!.uuid;
  // Compacted: the current context is a different (smaller) file than the history.
  await compactTask(store, defaultConfig(), compacted, {
    dryRun: false,
    offline: true,
    pipeline: ['truncate'],
  });
});
afterAll(() => {
  store?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const SCOPES: { format: ExportFormat; current: boolean }[] = EXPORT_FORMATS.flatMap(
  (format): { format: ExportFormat; current: boolean }[] =>
    format === 'archive' || format === 'html'
      ? [{ format, current: false }]
      : [
          { format, current: false },
          { format, current: true },
        ],
);

async function exportedBytes(ids: string[], format: ExportFormat, current: boolean) {
  const out = path.join(tempDir(), `out-${format}-${current}-${ids.length}`);
  fs.mkdirSync(out, { recursive: true });
  const target = ids.length === 1 && format !== 'archive' ? path.join(out, 'one') : out;
  const result = await exportTasks(store, { uuids: ids, format, current, output: target });
  return result.files.reduce((sum, f) => sum + f.bytes, 0);
}

describe('estimateExport', () => {
  it('is within 15 % of what each export writes, for every format and scope', async () => {
    const codexMessages = fs.statSync(
      path.join(store.readTask(uuids[0]!).dir, 'messages.jsonl'),
    ).size;
    expect(codexMessages).toBeGreaterThan(256 << 10);
    for (const uuid of uuids) {
      for (const { format, current } of SCOPES) {
        const real = await exportedBytes([uuid], format, current);
        const estimate = estimateExport(store, { uuids: [uuid], format, current });
        expect(estimate.files).toBe(1);
        expect(
          Math.abs(estimate.bytes - real) / real,
          `${uuid} ${format}${current ? ' current' : ''}: ${estimate.bytes} for ${real}`,
        ).toBeLessThan(0.15);
      }
    }
  });

  it('adds several tasks up: one archive, or one transcript each', async () => {
    for (const { format, current } of SCOPES) {
      const real = await exportedBytes(uuids, format, current);
      const estimate = estimateExport(store, { uuids, format, current });
      expect(estimate.files).toBe(format === 'archive' ? 1 : uuids.length);
      expect(Math.abs(estimate.bytes - real) / real, format).toBeLessThan(0.15);
    }
  });

  it('tells the current context from the history of a compacted task', () => {
    const history = estimateExport(store, { uuids: [compacted], format: 'markdown' });
    const current = estimateExport(store, {
      uuids: [compacted],
      format: 'markdown',
      current: true,
    });
    expect(current.bytes).toBeLessThan(history.bytes * 0.8);
  });

  it('refuses an unknown task, naming it', () => {
    expect(() =>
      estimateExport(store, {
        uuids: ['00000000-0000-4000-8000-000000000000'],
        format: 'markdown',
      }),
    ).toThrow(/00000000-0000-4000-8000-000000000000/);
  });
});
