import fs from 'node:fs';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiResult } from '../../shared/api/api-result';
import { OPERATION_NAMES } from '../../shared/api/operation-names';
import type { ApiOutput } from '../../shared/api/workbench-api';
import { useTempDir } from '../../../test/support/temp-dir';
import type { ForkWorker } from '../supervisor/worker-handle';
import { seedTasks } from './test-support/seed-tasks';
import { createWorkbenchService, type WorkbenchService } from './workbench-service';

const tempDir = useTempDir();
const services: WorkbenchService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close(100);
});

const noFork: ForkWorker = () => {
  throw new Error('this test starts no task process');
};

function open(
  base: string,
  configText?: string,
  env: NodeJS.ProcessEnv = {},
  pollMs?: number,
): { service: WorkbenchService; root: string; configFile: string } {
  const root = path.join(base, 'contexts');
  const configFile = path.join(base, 'config.yaml');
  if (configText !== undefined) fs.writeFileSync(configFile, configText);
  const service = createWorkbenchService({
    contextsRoot: root,
    configFile: configText === undefined ? null : configFile,
    fork: noFork,
    host: { kind: 'serve', version: '0.1.0-test', versions: {} },
    exportDir: path.join(base, 'exports'),
    env: { HOME: base, XDG_CONFIG_HOME: path.join(base, 'xdg'), ...env },
    ...(pollMs !== undefined && { pollMs }),
  });
  services.push(service);
  return { service, root, configFile };
}

async function ok<T>(result: Promise<ApiResult<T>>): Promise<T> {
  const r = await result;
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

async function call<K extends (typeof OPERATION_NAMES)[number]>(
  service: WorkbenchService,
  name: K,
  input?: unknown,
): Promise<ApiOutput<K>> {
  return (await ok(service.invoke(name, input))) as ApiOutput<K>;
}

describe('WorkbenchService', () => {
  it('implements every operation of the contract', () => {
    const { service } = open(tempDir());
    expect(Object.keys(service.handlers).sort()).toEqual([...OPERATION_NAMES].sort());
  });

  it('validates input with the contract and names the offending field', async () => {
    const { service } = open(tempDir());
    const bad = await service.invoke('queryTasks', { limit: 5000 });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad_input', field: 'limit' } });
    const unknownKey = await service.invoke('queryTasks', { limt: 5 });
    expect(unknownKey).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(!unknownKey.ok && unknownKey.error.message).toMatch(/"limt"/);
    const badStatus = await service.invoke('queryTasks', { status: ['running', 'nope'] });
    expect(badStatus).toMatchObject({ ok: false, error: { field: 'status[1]' } });
    const badUuid = await service.invoke('getTask', { uuid: '../../etc/passwd' });
    expect(badUuid).toMatchObject({ ok: false, error: { code: 'bad_input', field: 'uuid' } });
    expect(await service.invoke('dropTables', {})).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('answers app info, the task list with facets, and a task detail', async () => {
    const base = tempDir();
    const { service, root } = open(base);
    const [a, b] = await seedTasks(root, [
      { title: 'Fix parser', key: { owner: 'acme', repo: 'web', user: 'ana' } },
      {
        title: 'Add tests',
        key: { repo: 'cli', user: 'bo' },
        model: 'gpt-4o-mini',
        status: 'paused',
      },
    ]);
    const info = await call(service, 'appInfo');
    expect(info).toMatchObject({ name: 'Context Workbench', host: 'serve', contextsRoot: root });

    const page = await call(service, 'queryTasks', { facets: true, sort: 'title', order: 'asc' });
    expect(page.total).toBe(2);
    expect(page.rows.map((r) => r.title)).toEqual(['Add tests', 'Fix parser']);
    expect(page.rows[0]).not.toHaveProperty('prompt');
    expect(page.rows[0]!.prompt_preview).toBe('Please work on: Add tests');
    expect(page.facets!.status).toEqual({ running: 0, paused: 1, completed: 1, failed: 0 });
    expect(page.facets!.repos.map((r) => r.value).sort()).toEqual(['acme/web', 'cli']);
    expect(page.facets!.models.map((r) => r.value).sort()).toEqual(['gpt-4o', 'gpt-4o-mini']);

    const filtered = await call(service, 'queryTasks', { status: ['paused'], facets: true });
    expect(filtered.rows.map((r) => r.uuid)).toEqual([b!.uuid]);
    // status counts ignore the status filter so each chip says what it would show
    expect(filtered.facets!.status.completed).toBe(1);
    expect((await call(service, 'queryTasks', { repo: 'acme/web' })).rows[0]!.uuid).toBe(a!.uuid);

    const detail = await call(service, 'getTask', { uuid: a!.uuid });
    expect(detail.task.status).toBe('completed');
    expect(detail.metadata).toMatchObject({ uuid: a!.uuid });
    expect(detail.currentMessages).toBe(15);
    expect(detail.compactions).toEqual({ total: 0, active: 0 });
    expect(detail.supervised).toBe(false);
    expect(
      await service.invoke('getTask', { uuid: '550e8400-e29b-41d4-a716-446655440000' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('announces writes by other processes while a UI listens, and refreshes the facets', async () => {
    const { service, root } = open(tempDir(), undefined, {}, 50);
    await seedTasks(root, [{ title: 'one', model: 'model-a' }]);
    const first = await call(service, 'queryTasks', { facets: true });
    expect(first.facets!.models.map((m) => m.value)).toEqual(['model-a']);
    const events: string[] = [];
    const stop = service.subscribe((e) =>
      events.push(`${e.type}:${'reason' in e ? e.reason : ''}`),
    );
    await new Promise((r) => setTimeout(r, 120));
    expect(events).toEqual([]);
    // another connection, as a task process or `cwb run` would write
    await seedTasks(root, [{ title: 'two', model: 'model-b' }]);
    await vi.waitFor(() => expect(events).toContain('tasks-changed:external'), { timeout: 5000 });
    stop();
    const second = await call(service, 'queryTasks', { facets: true });
    expect(second.facets!.models.map((m) => m.value).sort()).toEqual(['model-a', 'model-b']);
  });

  it('reads windows of the history and of the current context, and searches in steps', async () => {
    const { service, root } = open(tempDir());
    const [t] = await seedTasks(root, [{ title: 'Search me', pairs: 20 }]);
    const history = await call(service, 'readMessages', { uuid: t!.uuid, from: 10, limit: 5 });
    expect(history.view).toBe('history');
    expect(history.total).toBe(43);
    expect(history.messages.map((m) => ('seq' in m ? m.seq : 0))).toEqual([10, 11, 12, 13, 14]);
    // Appended with the estimate only; an exact o200k count is made when asked for.
    expect(history.messages.every((m) => !('tokens_o200k' in m))).toBe(true);
    const counted = await call(service, 'readMessages', {
      uuid: t!.uuid,
      from: 10,
      limit: 5,
      exactTokens: true,
    });
    for (const m of counted.messages) {
      if (!('seq' in m)) continue;
      expect(m.tokens_o200k).toBe(
        countTokens(m.content ?? '') +
          (m.tool_calls ? countTokens(JSON.stringify(m.tool_calls)) : 0),
      );
    }
    const current = await call(service, 'readMessages', {
      uuid: t!.uuid,
      view: 'current',
      limit: 2,
    });
    expect(current).toMatchObject({ view: 'current', total: 43 });
    expect(current.messages.map((m) => ('index' in m ? m.index : 0))).toEqual([1, 2]);

    const found = await call(service, 'searchMessages', { uuid: t!.uuid, query: 'THE NEEDLE' });
    expect(found.hits).toHaveLength(1);
    const hit = found.hits[0]!;
    expect(hit).toMatchObject({ seq: 43, role: 'assistant', field: 'content' });
    expect(hit.snippet.slice(hit.match[0], hit.match[1])).toBe('The needle');
    expect(found.nextSeq).toBeNull();

    // bounded: two hits per call, continued from nextSeq
    const first = await call(service, 'searchMessages', {
      uuid: t!.uuid,
      query: 'src/f1',
      limit: 2,
    });
    expect(first.hits.map((h) => h.field)).toEqual(['tool_calls', 'content']);
    expect(first.nextSeq).not.toBeNull();
    const rest = await call(service, 'searchMessages', {
      uuid: t!.uuid,
      query: 'src/f1',
      fromSeq: first.nextSeq!,
      limit: 200,
    });
    // f1 and f10..f19: each appears in a call and in its result
    expect(first.hits.length + rest.hits.length).toBe(22);
    const exact = await call(service, 'searchMessages', {
      uuid: t!.uuid,
      query: 'the NEEDLE',
      caseSensitive: true,
    });
    expect(exact.hits).toEqual([]);
  });

  it('previews, runs, lists, undoes and rewinds compactions of an idle task offline', async () => {
    const { service, root } = open(tempDir());
    const [t] = await seedTasks(root, [{ title: 'Compact me', pairs: 12 }]);
    const uuid = t!.uuid;
    const preview = await call(service, 'previewCompaction', { uuid, strategies: ['extractive'] });
    expect(preview.dryRun).toBe(true);
    expect(preview.summarizer).toBe('extractive');
    expect(preview.steps[0]).toMatchObject({ strategy: 'extractive', applied: true });
    expect(preview.tokensAfter).toBeLessThan(preview.tokensBefore);
    expect((await call(service, 'listCompactions', { uuid })).records).toEqual([]);

    const events: string[] = [];
    service.subscribe((e) => events.push(e.type));
    const run = await call(service, 'runCompaction', { uuid, strategies: ['extractive'] });
    expect(run.mode).toBe('ran');
    if (run.mode !== 'ran') return;
    expect(run.report.tokensAfter).toBe(preview.tokensAfter);
    // one compaction-step per pipeline step: the UI's progress
    expect(events).toEqual([
      'compaction-started',
      'compaction-step',
      'compaction-finished',
      'tasks-changed',
    ]);
    const list = await call(service, 'listCompactions', { uuid });
    expect(list.records).toHaveLength(1);
    expect(list.records[0]).toMatchObject({ strategy: 'extractive', undone: false });
    expect(list.records[0]!.planLength).toBeGreaterThan(0);
    expect(list.records[0]).not.toHaveProperty('plan');
    const detail = await call(service, 'getTask', { uuid });
    expect(detail.currentMessages).toBe(run.report.contextMessages);

    const undo = await call(service, 'undoCompaction', { uuid, id: list.records[0]!.id });
    expect(undo.undone).toEqual([list.records[0]!.id]);
    expect((await call(service, 'getTask', { uuid })).currentMessages).toBe(27);

    const rewind = await call(service, 'rewindTask', { uuid, seq: 10 });
    expect(rewind.hiddenCount).toBe(17);
    expect((await call(service, 'getTask', { uuid })).currentMessages).toBe(10);
    expect(await service.invoke('rewindTask', { uuid, seq: 0 })).toMatchObject({
      ok: false,
      error: { code: 'bad_input', field: 'seq' },
    });
  });

  it('reads a tool output by ref, a window of lines at a time', async () => {
    const { service, root } = open(tempDir());
    const [t] = await seedTasks(root, [{ title: 'Outputs', pairs: 1 }]);
    const tool = await call(service, 'readMessages', { uuid: t!.uuid, from: 4, limit: 1 });
    const ref = (tool.messages[0] as { output_ref?: string }).output_ref!;
    const window = await call(service, 'readToolOutput', {
      uuid: t!.uuid,
      ref,
      offset: 1,
      limit: 1,
    });
    expect(window).toEqual({ ref, offset: 1, lines: ['line 2 of f1'], more: true });
    expect(await service.invoke('readToolOutput', { uuid: t!.uuid, ref: '../x' })).toMatchObject({
      ok: false,
      error: { code: 'bad_input', field: 'ref' },
    });
  });

  it('refuses control requests that do not fit the task status', async () => {
    const { service, root } = open(tempDir());
    const [done, paused] = await seedTasks(root, [
      { title: 'done' },
      { title: 'paused', status: 'paused' },
    ]);
    expect(await service.invoke('pauseTask', { uuid: done!.uuid })).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    });
    expect(await service.invoke('resumeTask', { uuid: done!.uuid })).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    });
    expect(await service.invoke('stopTask', { uuid: paused!.uuid })).toMatchObject({
      ok: false,
      error: { code: 'conflict' },
    });
    // no model configured: refused before any process starts
    const start = await service.invoke('startTask', { prompt: 'hi', workdir: root });
    expect(start).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    expect(!start.ok && start.error.message).toMatch(/no model chosen/);
    expect(
      await service.invoke('startTask', { prompt: 'hi', workdir: 'relative/dir' }),
    ).toMatchObject({
      ok: false,
      error: { field: 'workdir' },
    });
  });

  it('exports an archive and imports it back as a new task', async () => {
    const base = tempDir();
    const { service, root } = open(base);
    const [t] = await seedTasks(root, [{ title: 'Round trip' }]);
    const exported = await call(service, 'exportTasks', { uuids: [t!.uuid], format: 'archive' });
    expect(exported.files).toHaveLength(1);
    const file = exported.files[0]!.path;
    expect(path.dirname(file)).toBe(path.join(base, 'exports'));
    expect(fs.statSync(file).size).toBe(exported.files[0]!.bytes);
    const imported = await call(service, 'importFiles', { paths: [file] });
    expect(imported.failed).toEqual([]);
    expect(imported.results[0]!.format).toBe('cwb');
    expect(imported.results[0]!.tasks[0]!.original_uuid).toBe(t!.uuid);
    expect((await call(service, 'queryTasks')).total).toBe(2);
    const md = await call(service, 'exportTasks', { uuids: [t!.uuid], format: 'markdown' });
    expect(fs.readFileSync(md.files[0]!.path, 'utf8')).toContain('Round trip');
  });
});

describe('settings', () => {
  const CONFIG = `# my settings
context_storage:
  cleanup_days: 30   # keep a month
llm:
  provider: openai
  openai:
    model: gpt-4o
    api_key: "\${OPENAI_API_KEY}"   # from the environment
other_tool:
  keep: me
`;
  const env = { OPENAI_API_KEY: 'sk-secret-value-123' };

  it('shows settings with keys redacted and references named', async () => {
    const { service, configFile } = open(tempDir(), CONFIG, env);
    const view = await call(service, 'getSettings');
    expect(view.file).toBe(configFile);
    expect(view.settings.llm.openai.api_key).toBe('***');
    expect(JSON.stringify(view)).not.toContain('sk-secret-value-123');
    expect(view.references).toEqual({ 'llm.openai.api_key': '${OPENAI_API_KEY}' });
    expect(view.settings.storage.cleanup_days).toBe(30);
  });

  it('writes only what changed, keeps comments, other sections and ${VAR} references', async () => {
    const { service, configFile } = open(tempDir(), CONFIG, env);
    const view = await call(service, 'getSettings');
    // the form is sent back whole with two changes
    const settings = structuredClone(view.settings);
    settings.storage.cleanup_days = 14;
    settings.compaction.threshold_ratio = 0.6;
    const updated = await call(service, 'updateSettings', { patch: settings });
    expect(updated.notApplied).toEqual([]);
    expect(updated.settings.storage.cleanup_days).toBe(14);
    expect(updated.settings.compaction.threshold_ratio).toBe(0.6);
    const text = fs.readFileSync(configFile, 'utf8');
    expect(text).not.toContain('sk-secret-value-123');
    expect(text).toContain('api_key: "${OPENAI_API_KEY}"');
    expect(text).toContain('# my settings');
    expect(text).toContain('cleanup_days: 14');
    expect(text).toContain('thresholdRatio: 0.6');
    expect(text).toContain('keep: me');
    expect(text).not.toContain('summary_prompt');
  });

  it('refuses a clear API key, an unset variable and out-of-range values, naming the field', async () => {
    const { service, configFile } = open(tempDir(), CONFIG, env);
    const before = fs.readFileSync(configFile, 'utf8');
    const clear = await service.invoke('updateSettings', {
      patch: { llm: { openai: { api_key: 'sk-typed-in-clear' } } },
    });
    expect(clear).toMatchObject({ ok: false, error: { field: 'patch.llm.openai.api_key' } });
    const unset = await service.invoke('updateSettings', {
      patch: { llm: { openai: { api_key: '${NOT_SET_ANYWHERE}' } } },
    });
    expect(unset).toMatchObject({ ok: false, error: { field: 'patch.llm.openai.api_key' } });
    const range = await service.invoke('updateSettings', {
      patch: { compaction: { threshold_ratio: 1.5 } },
    });
    expect(range).toMatchObject({
      ok: false,
      error: { code: 'bad_input', field: 'patch.compaction.threshold_ratio' },
    });
    const type = await service.invoke('updateSettings', {
      patch: { storage: { cleanup_days: 'x' } },
    });
    expect(type).toMatchObject({ ok: false, error: { field: 'patch.storage.cleanup_days' } });
    expect(fs.readFileSync(configFile, 'utf8')).toBe(before);
  });

  it('writes a key reference, removes values with null, and creates a missing file privately', async () => {
    const base = tempDir();
    const { service } = open(base, undefined, env);
    const target = path.join(base, 'xdg', 'context-workbench', 'config.yaml');
    expect((await call(service, 'getSettings')).target).toBe(target);
    await call(service, 'updateSettings', {
      patch: {
        llm: { provider: 'openai', openai: { model: 'gpt-4o', api_key: '${OPENAI_API_KEY}' } },
      },
    });
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(target, 'utf8')).toContain('${OPENAI_API_KEY}');
    const removed = await call(service, 'updateSettings', {
      patch: { llm: { openai: { api_key: null } } },
    });
    expect(removed.settings.llm.openai.api_key).toBeUndefined();
    expect(fs.readFileSync(target, 'utf8')).not.toContain('api_key');
  });

  it('says when the environment overrides a changed setting', async () => {
    const { service } = open(tempDir(), CONFIG, { ...env, CLEANUP_DAYS: '7' });
    const updated = await call(service, 'updateSettings', {
      patch: { storage: { cleanup_days: 9 } },
    });
    expect(updated.envOverrides).toEqual(['CLEANUP_DAYS']);
    expect(updated.notApplied).toEqual([
      { key: 'storage.cleanup_days', reason: 'the environment variable CLEANUP_DAYS overrides it' },
    ]);
  });
});
