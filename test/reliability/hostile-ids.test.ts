/**
 * Hostile input (issue 9): task ids and paths — `..`, absolute paths, NUL bytes, very long
 * strings, unicode look-alikes, other UUID versions — fuzzed with fast-check through every
 * public entry that takes a task id: ContextStore (readTask, openTask, resumeTask,
 * openForMaintenance, requireTask, createTask({uuid})), TaskSupervisor (start, resume),
 * every CLI command (runCli in process, so NUL bytes get through) and every workbench API
 * operation. Always the "is not a task id" error (the API: a validation error naming the
 * field), and nothing outside the contexts root touched — nor anything inside it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../../src/core/store/context-store';
import { TaskSupervisor } from '../../src/core/supervisor/task-supervisor';
import {
  createWorkbenchService,
  type WorkbenchService,
} from '../../src/core/api/workbench-service';
import { runCli } from '../../src/cli/run-cli';
import type { Output } from '../../src/cli/output';
import { isTaskUuid } from '../../src/shared/uuid';
import { WORKBENCH_CONTRACT } from '../../src/shared/api/contract';
import { OPERATION_NAMES } from '../../src/shared/api/operation-names';
import { z } from 'zod';

const SAMPLE = '550e8400-e29b-41d4-a716-446655440000';
const hostileIds: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '.',
    '..',
    '../x',
    '../../../../etc/passwd',
    '/etc/passwd',
    '/',
    'C:\\Windows\\System32',
    '\\\\server\\share',
    '%2e%2e%2f',
    'a\u0000b',
    `${SAMPLE}\u0000`,
    `${SAMPLE}/../x`,
    `${SAMPLE}/`,
    `${SAMPLE}.zip`,
    `running/${SAMPLE}`,
    SAMPLE.replace('a', '\u0430'), // Cyrillic a
    SAMPLE.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d))), // fullwidth digits
    `\u202e${SAMPLE}`,
    SAMPLE.replace('-41d4-', '-11d4-'), // a version 1 UUID
    'x'.repeat(100_000),
    '..'.repeat(5000),
    'con',
    'nul',
  ),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.uuid({ version: [1, 2, 3, 5, 6, 7, 8] }),
  fc
    .tuple(fc.uuid({ version: 4 }), fc.constantFrom('/..', '\u0000', '/x', '..', ' x'))
    .map(([u, s]) => `${u}${s}`),
);

/** What the CLI would accept: it trims and lowercases ids before checking them. */
function validForCli(id: string): boolean {
  return isTaskUuid(id.trim().toLowerCase());
}

const NOT_A_TASK_ID = /is not a task id/;

function capture(): Output & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => void stdout.push(t), err: (t) => void stderr.push(t) };
}

/** Every path under `dir` with its size and mtime. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      // tasks.db and its WAL change on every read transaction's checkpoint bookkeeping.
      if (/tasks\.db/.test(e.name)) continue;
      const st = fs.lstatSync(p);
      out.push(`${path.relative(dir, p)} ${e.isDirectory() ? 'dir' : st.size} ${st.mtimeMs}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

describe('hostile task ids and paths', () => {
  let base: string;
  let root: string;
  let configFile: string;
  let store: ContextStore;
  let service: WorkbenchService;
  let known: string;
  let before: string[];

  beforeAll(async () => {
    // One folder for the whole file (useTempDir would remove it after the first test).
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-hostile-ids-'));
    root = path.join(base, 'contexts');
    fs.mkdirSync(path.join(base, 'sibling'));
    fs.writeFileSync(path.join(base, 'sibling', 'canary.txt'), 'do not touch\n');
    configFile = path.join(base, 'config.yaml');
    fs.writeFileSync(configFile, '');
    store = ContextStore.open(root);
    const task = store.createTask({ title: 'the only task' });
    task.addMessage({ role: 'user', content: 'hello' });
    await task.stop();
    known = task.uuid;
    service = createWorkbenchService({
      contextsRoot: root,
      configFile,
      fork: () => {
        throw new Error('no task process in this test');
      },
      host: { kind: 'serve', version: 'test', versions: {} },
      exportDir: path.join(base, 'exports'),
      env: { HOME: base },
    });
    before = snapshot(base);
  });

  afterAll(async () => {
    await service?.close(100);
    store?.close();
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('ContextStore and TaskSupervisor: every entry refuses with "is not a task id" before touching a path', () => {
    const supervisor = new TaskSupervisor({
      fork: () => {
        throw new Error('must not fork');
      },
      contextsRoot: root,
      configFile,
    });
    fc.assert(
      fc.property(hostileIds, (id) => {
        fc.pre(!isTaskUuid(id));
        const entries: [string, () => unknown][] = [
          ['readTask', () => store.readTask(id)],
          ['requireTask', () => store.requireTask(id)],
          ['openTask', () => store.openTask(id)],
          ['resumeTask', () => store.resumeTask(id)],
          ['openForMaintenance', () => store.openForMaintenance(id)],
          ['createTask', () => store.createTask({ uuid: id })],
          ['taskPath', () => store.taskPath({ uuid: id, status: 'paused' })],
          ['supervisor.start', () => supervisor.start({ uuid: id, prompt: 'x', workdir: base })],
          ['supervisor.resume', () => supervisor.resume(id)],
          ['supervisor.pause', () => supervisor.pause(id)],
        ];
        for (const [name, call] of entries) expect(call, name).toThrow(NOT_A_TASK_ID);
      }),
      { numRuns: 300 },
    );
    expect(snapshot(base)).toEqual(before);
  });

  it('every CLI command taking a task id: exit code 2 and one "is not a task id" line', async () => {
    const commands = (id: string): string[][] => [
      ['show', '--', id],
      ['messages', '--', id],
      ['messages', '--current', '--', id],
      ['compact', '--dry-run', '--', id],
      ['compactions', '--', id],
      ['gc', '--', id],
      ['undo', '--', id, '1'],
      ['rewind', '--to-seq', '1', '--', id],
      ['pause', '--', id],
      ['stop', '--', id],
      ['resume', '--', id],
      ['export', '--format', 'markdown', '--', id],
      ['export', '--format', 'archive', '-o', path.join(base, 'out.zip'), '--', known, id],
    ];
    await fc.assert(
      fc.asyncProperty(hostileIds, async (id) => {
        fc.pre(!validForCli(id));
        for (const args of commands(id)) {
          const io = capture();
          const code = await runCli(['--contexts', root, '--config', configFile, ...args], io);
          expect(io.stderr.join('\n'), args.slice(0, 2).join(' ')).toMatch(NOT_A_TASK_ID);
          expect(code).toBe(2);
          expect(io.stderr).toHaveLength(1);
        }
      }),
      { numRuns: 40 },
    );
    expect(snapshot(base)).toEqual(before);
  }, 120_000);

  it('every workbench API operation taking a task id: a validation error naming the field', async () => {
    const calls = (id: string): [string, unknown, string][] => [
      ['getTask', { uuid: id }, 'uuid'],
      ['readMessages', { uuid: id }, 'uuid'],
      ['searchMessages', { uuid: id, query: 'x' }, 'uuid'],
      ['listCompactions', { uuid: id }, 'uuid'],
      ['previewCompaction', { uuid: id }, 'uuid'],
      ['runCompaction', { uuid: id }, 'uuid'],
      ['undoCompaction', { uuid: id, id: 1 }, 'uuid'],
      ['rewindTask', { uuid: id, seq: 1 }, 'uuid'],
      ['readToolOutput', { uuid: id, ref: 'x' }, 'uuid'],
      ['pauseTask', { uuid: id }, 'uuid'],
      ['resumeTask', { uuid: id }, 'uuid'],
      ['stopTask', { uuid: id }, 'uuid'],
      ['exportTasks', { uuids: [known, id], format: 'markdown' }, 'uuids[1]'],
    ];
    // Every operation whose input has a `uuid` (the contract grows; this list does not need to).
    const withUuid = OPERATION_NAMES.filter((name) => {
      const schema: z.ZodType = WORKBENCH_CONTRACT[name].input;
      return schema instanceof z.ZodObject && 'uuid' in (schema.shape as Record<string, unknown>);
    });
    expect(withUuid.length).toBeGreaterThanOrEqual(12);
    await fc.assert(
      fc.asyncProperty(hostileIds, async (id) => {
        fc.pre(!isTaskUuid(id));
        for (const [name, input, field] of calls(id)) {
          const result = await service.invoke(name, input);
          expect(result.ok, name).toBe(false);
          if (!result.ok) expect(result.error, name).toMatchObject({ code: 'bad_input', field });
        }
        for (const name of withUuid) {
          const result = await service.invoke(name, { uuid: id });
          expect(result.ok, name).toBe(false);
          if (!result.ok) expect(result.error.code, name).toBe('bad_input');
          const parsed = WORKBENCH_CONTRACT[name].input.safeParse({ uuid: id });
          expect(
            parsed.error?.issues.some((i) => i.path[0] === 'uuid'),
            name,
          ).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
    expect(snapshot(base)).toEqual(before);
  });

  const hostilePaths = fc.oneof(
    fc.constantFrom(
      'a\u0000b',
      '\u0000',
      'x'.repeat(5000),
      `${'../'.repeat(40)}etc/passwd`,
      '/proc/self/mem',
      '/dev/zero',
      '/',
      '\u202e.jsonl',
      'ファイル.json',
    ),
    fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => s.length > 0),
  );

  async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
    const io = capture();
    const code = await runCli(['--contexts', root, '--config', configFile, ...args], io);
    return { code, stderr: io.stderr.join('\n') };
  }

  it('hostile paths to import (NUL, very long, `..`, devices, unicode): a clear error or a result, never an internal error; nothing written outside', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(hostilePaths, fc.constantFrom(base, path.join(base, 'sibling'))),
        async (p) => {
          const r = await cli(['import', '--', p]);
          expect(r.stderr, JSON.stringify(p)).not.toMatch(/internal error/);
          expect([0, 2]).toContain(r.code);
          const result = await service.invoke('importFiles', { paths: [p] });
          if (!result.ok) expect(result.error.code, result.error.message).toBe('bad_input');
        },
      ),
      { numRuns: 60 },
    );
    expect(snapshot(base)).toEqual(before);
    expect(fs.readFileSync(path.join(base, 'sibling', 'canary.txt'), 'utf8')).toBe(
      'do not touch\n',
    );
  }, 120_000);

  /** Targets inside exports/ (a `..` in a path the user typed is the user's choice). */
  function exportTarget(p: string): string | undefined {
    const exports = path.join(base, 'exports');
    const target = path.join(exports, p);
    return target.startsWith(exports + path.sep) ? target : undefined;
  }

  it('hostile export targets without NUL (very long, unicode, control characters): a clear error or a file, never an internal error', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostilePaths.filter((p) => !p.includes('\u0000') && exportTarget(p) !== undefined),
        async (p) => {
          const r = await cli(['export', known, '--format', 'markdown', '-o', exportTarget(p)!]);
          expect(r.stderr, JSON.stringify(p)).not.toMatch(/internal error/);
          expect([0, 2]).toContain(r.code);
        },
      ),
      { numRuns: 40 },
    );
    expect(snapshot(base).filter((p) => !p.startsWith('exports'))).toEqual(before);
  }, 120_000);

  // Was: `cwb export -o 'a\0b'` ended with "internal error: TypeError: The argument 'path'
  // must be ... without null bytes" (exit code 3). Now exportTasks refuses it as bad input.
  it('an export target with a NUL byte is bad input (exit code 2), not an internal error', async () => {
    const r = await cli([
      'export',
      known,
      '--format',
      'markdown',
      '-o',
      path.join(base, 'exports', 'a\u0000b.md'),
    ]);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(2);
  });
});
