import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { SourceSync } from './source-sync';
import { watchSources } from './source-watcher';
import { parseSourcesConfig } from './sources-config';

const tempDir = useTempDir();

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function messagesOf(store: ContextStore): string[] {
  return store.listTasks({ limit: 10 }).rows.flatMap((row) =>
    fs
      .readFileSync(path.join(store.taskPath(row), 'messages.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { role: string }).role),
  );
}

describe('watchSources', () => {
  it("writes a reply held back once its file has been still, and follows an OpenHands session's event files", async () => {
    const root = tempDir();
    const claude = path.join(root, 'claude');
    const openhands = path.join(root, 'openhands');
    fs.mkdirSync(path.join(claude, '-w'), { recursive: true });
    const id = '5f2b8c1d9e7a4b3c8d6e0f1a2b3c4d5e';
    const events = path.join(openhands, id, 'events');
    fs.mkdirSync(events, { recursive: true });
    const config = parseSourcesConfig(
      [
        'sources:',
        '  quiet_ms: 400',
        `  claude-code: { folders: [${JSON.stringify(claude)}] }`,
        `  openhands: { folders: [${JSON.stringify(openhands)}] }`,
      ].join('\n'),
      null,
      { HOME: path.join(root, 'home') },
    );
    const store = ContextStore.open(path.join(root, 'contexts'));
    const watcher = watchSources(new SourceSync(store, config), {
      onSynced: () => undefined,
      rescanMs: 600_000,
    });
    try {
      await watcher.ready;
      const session = path.join(claude, '-w', 's.jsonl');
      const entry = (fields: Record<string, unknown>): string =>
        `${JSON.stringify({ sessionId: 's', isSidechain: false, timestamp: new Date().toISOString(), ...fields })}\n`;
      fs.writeFileSync(
        session,
        entry({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'hello' } }) +
          // No stop_reason: the response may still get more entries.
          entry({
            type: 'assistant',
            uuid: 'u2',
            message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] },
          }),
      );
      await until('the user message', () => messagesOf(store).includes('user'));
      expect(messagesOf(store)).toEqual(['user']);
      // Nothing else is written to the file: the watcher comes back once it has been still.
      await until('the held reply', () => messagesOf(store).includes('assistant'));
      expect(messagesOf(store)).toEqual(['user', 'assistant']);

      const fixture = realFixture('openhands', 'sessions', id, 'events');
      for (let n = 0; n <= 4; n++)
        fs.copyFileSync(path.join(fixture, `${n}.json`), path.join(events, `${n}.json`));
      await until('the events', () => messagesOf(store).length === 5);
      const row = store.listTasks({ limit: 10 }).rows.find((r) => r.task_source === 'openhands');
      expect(row).toMatchObject({ task_id: id, total_messages: 3 });
    } finally {
      await watcher.close();
      store.close();
    }
  });
});
