import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { sourceKind } from '../sources/source-kinds';
import { syncFile } from '../sources/sync-file';
import { importFile } from './import-file';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { jsonlLines as lines } from '../../../test/support/jsonl-lines';

const tempDir = useTempDir();
const TASK = realFixture('cline', '1763991000000');

/** Every task of the store: its row's figures and its messages, parents by title. */
function tasks(store: ContextStore): Record<string, unknown>[] {
  const rows = store.listTasks({ limit: 20 }).rows;
  const title = new Map(rows.map((r) => [r.uuid, r.title]));
  return rows
    .map((r) => ({
      title: r.title,
      parent: r.parent_uuid ? title.get(r.parent_uuid) : null,
      task_type: r.task_type,
      model: r.model,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      created_at: r.created_at,
      completed_at: r.completed_at,
      messages: lines(path.join(store.taskPath(r), 'messages.jsonl')).map((m) => [
        m.role,
        m.content,
        m.tool_name ?? null,
      ]),
    }))
    .sort((a, b) => String(a.title).localeCompare(String(b.title)));
}

describe('Cline use_subagents', () => {
  it('each finished subagent is a subagent task under its task: its prompt, its whole result, its usage', async () => {
    const store = ContextStore.open(tempDir());
    const result = await importFile(store, path.join(TASK, 'api_conversation_history.json'));
    const got = tasks(store);
    const parent = got.find((t) => t.parent === null)!;
    const subs = got.filter((t) => t.parent !== null);
    expect(subs).toMatchObject([
      {
        title: expect.stringMatching(/^Subagent: Find where HTTP rate limiting is configured/),
        parent: parent.title,
        task_type: 'subagent',
        model: 'claude-sonnet-4-5-20250929',
        input_tokens: 18204,
        output_tokens: 612,
        // From the status row to the usage row after the run.
        created_at: '2025-11-24T13:30:06.300Z',
        completed_at: '2025-11-24T13:31:02.100Z',
      },
      {
        title: expect.stringMatching(/^Subagent: Trace the POST \/login route/),
        parent: parent.title,
        input_tokens: 21482,
        output_tokens: 734,
      },
    ]);
    // The whole result, where the parent's tool result has it cut to 1200 characters.
    expect(subs[1]!.messages).toEqual([
      ['user', expect.stringMatching(/^Trace the POST \/login route/), null],
      [
        'assistant',
        expect.stringMatching(/^POST \/login is registered .* No rate limiter runs on \/auth\.$/),
        null,
      ],
    ]);
    // The parent's answer names its tool (the result's header says "[subagents]").
    expect(parent.messages).toContainEqual([
      'tool',
      expect.stringMatching(/^\[subagents\] Result:\nSubagent results:\nTotal: 2/),
      'use_subagents',
    ]);
    // The parent keeps only its own requests' usage (metrics.tokens; prompt includes cached).
    expect(parent).toMatchObject({ input_tokens: 11230 + (12104 - 11227) + (12533 - 12101) });
    expect(result.skipped).toEqual([]);
    store.close();
  });

  it('a run still going is left out until it ends, then synced once, as imported', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const dir = path.join(
      home,
      '.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1763991000000',
    );
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'api_conversation_history.json');
    const history = JSON.parse(
      fs.readFileSync(path.join(TASK, 'api_conversation_history.json'), 'utf8'),
    ) as unknown[];
    const ui = JSON.parse(fs.readFileSync(path.join(TASK, 'ui_messages.json'), 'utf8')) as {
      say?: string;
      text?: string;
    }[];
    // While they run: the call is in the history, the status row says running.
    const at = ui.findIndex((m) => m.say === 'subagent');
    const status = JSON.parse(ui[at]!.text!) as { status: string; items: { status: string }[] };
    const running = {
      ...status,
      status: 'running',
      items: status.items.map((i) => ({ ...i, status: 'running', result: undefined })),
    };
    fs.writeFileSync(file, JSON.stringify(history.slice(0, 2)));
    fs.writeFileSync(
      path.join(dir, 'ui_messages.json'),
      JSON.stringify([
        ...ui.slice(0, at),
        { ...ui[at], text: JSON.stringify(running), partial: true },
      ]),
    );
    const kind = sourceKind('cline')!;
    const live = ContextStore.open(path.join(root, 'live'));
    expect((await syncFile(live, kind, file)).status).toBe('synced');
    expect(tasks(live).filter((t) => t.parent !== null)).toEqual([]);

    // Done: Cline rewrites both files whole.
    for (const name of ['api_conversation_history.json', 'ui_messages.json'])
      fs.copyFileSync(path.join(TASK, name), path.join(dir, name));
    expect((await syncFile(live, kind, file, { quietMs: 0 })).status).toBe('synced');
    expect((await syncFile(live, kind, file, { quietMs: 0 })).status).toBe('unchanged');

    const imported = ContextStore.open(path.join(root, 'imported'));
    await importFile(imported, file);
    expect(tasks(live)).toEqual(tasks(imported));
    expect(tasks(live).filter((t) => t.parent !== null)).toHaveLength(2);
    live.close();
    imported.close();
  });
});
