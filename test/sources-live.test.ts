import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readEvents, rawRequest } from '../src/core/web/test-support/raw-http';
import { realFixture } from './support/real-fixtures';
import { startServe, type ServeProcess } from './support/serve-process';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SESSION = realFixture('claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl');

interface Event {
  type: string;
  uuids?: string[];
}

/** Every file under `dir` with the hash of its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = crypto
      .createHash('sha256')
      .update(fs.readFileSync(file))
      .digest('hex');
  }
  return out;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting: ${what}`);
}

describe('live sources in cwb serve (a real process)', () => {
  it('a line appended to a watched Claude Code session reaches the open task over SSE; compaction, rewind and export never touch the session folder', async () => {
    const home = tempDir();
    const project = path.join(home, '.claude', 'projects', '-work-demo');
    fs.mkdirSync(project, { recursive: true });
    const session = path.join(project, path.basename(SESSION));
    const lines = fs.readFileSync(SESSION, 'utf8').split('\n').filter(Boolean);
    fs.writeFileSync(session, `${lines.slice(0, 20).join('\n')}\n`);

    const serve: ServeProcess = await startServe(['--contexts', path.join(home, 'contexts')], {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      CWB_SOURCES_WATCH: '1',
    });
    cleanups.push(() => serve.stop());
    await until(() => serve.output().includes('watching them'), 'the sources to be watched');
    const auth = { Authorization: `Bearer ${serve.token}` };
    const call = async <T>(operation: string, body: unknown): Promise<T> => {
      const res = await rawRequest(serve.port, {
        method: 'POST',
        path: `/api/${operation}`,
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, res.body).toBe(200);
      return (JSON.parse(res.body) as { value: T }).value;
    };

    const page = await call<{
      rows: { uuid: string; task_source: string; task_type: string; total_messages: number }[];
    }>('queryTasks', {});
    const main = page.rows.find((r) => r.task_source === 'claude-code' && r.task_type === '')!;
    expect(main).toBeDefined();
    const before = await call<{ total: number }>('readMessages', { uuid: main.uuid, limit: 0 });

    // The open timeline listens to the event stream and re-reads the task it concerns.
    const stream = readEvents(serve.port, auth, (events) =>
      (events as Event[]).some((e) => e.type === 'tasks-changed' && e.uuids?.includes(main.uuid)),
    );
    await new Promise((r) => setTimeout(r, 300));
    const text = `live line ${crypto.randomUUID()}`;
    fs.appendFileSync(
      session,
      `${JSON.stringify({
        type: 'user',
        uuid: crypto.randomUUID(),
        parentUuid: null,
        isSidechain: false,
        sessionId: '5c0375b4-57a5-4f26-b12d-d022ee4e51b7',
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: text },
      })}\n`,
    );
    const { events } = await stream;
    expect(
      (events as Event[]).some((e) => e.type === 'tasks-changed' && e.uuids?.includes(main.uuid)),
    ).toBe(true);
    const after = await call<{ total: number; messages: { content: string | null }[] }>(
      'readMessages',
      { uuid: main.uuid, from: before.total + 1 },
    );
    expect(after.messages.map((m) => m.content)).toEqual([text]);

    // Read-only history: it cannot be resumed; compaction, rewind and export work and leave
    // the agent's folder exactly as it was.
    const folder = snapshot(path.join(home, '.claude'));
    const resumed = await rawRequest(serve.port, {
      method: 'POST',
      path: '/api/resumeTask',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ uuid: main.uuid }),
    });
    expect(resumed.status).toBeGreaterThanOrEqual(400);
    await call('runCompaction', { uuid: main.uuid, strategies: ['extractive'] });
    await call('rewindTask', { uuid: main.uuid, seq: 3 });
    const exported = await call<{ files: string[] } | Record<string, unknown>>('exportTasks', {
      uuids: [main.uuid],
      format: 'markdown',
      output: path.join(home, 'exports'),
    });
    expect(exported).toBeDefined();
    expect(snapshot(path.join(home, '.claude'))).toEqual(folder);
    expect(serve.output()).not.toMatch(/failed/);
  });
});
