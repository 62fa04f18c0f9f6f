import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { writeHtml } from './html-export';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

// Built at run time so that no secret scanner mistakes this file for a leak.
const KEY = ['sk', 'ant', 'api03', 'Qw3rTy7UiOp0AsDfGhJkL1ZxCvBnM2-0123456789abcdef_GHIJ'].join(
  '-',
);
const TOKEN = 'ghp_' + 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8';

function collect(): { sink: { write(t: string): Promise<void> }; text: () => string } {
  const parts: string[] = [];
  return { sink: { write: async (t) => void parts.push(t) }, text: () => parts.join('') };
}

function seeded(): { store: ContextStore; uuid: string } {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'));
  const task = store.createTask({
    title: `Deploy with ${KEY} <b>now</b>`,
    model: 'claude-sonnet-4-5',
    workdir: '/home/alice/shop',
  });
  task.addMessage({ role: 'user', content: `Use this key: ${KEY}\nand <script>alert(1)</script>` });
  task.addMessage({ role: 'assistant', content: 'Thinking about it', name: 'reasoning' });
  task.addMessage({
    role: 'assistant',
    content: 'Pushing.',
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: {
          name: 'Bash',
          arguments: JSON.stringify({ command: `git push https://${TOKEN}@github.com/o/r` }),
        },
      },
    ],
  });
  task.addMessage({
    role: 'tool',
    content: `remote: ok\nAuthorization: Bearer ${TOKEN}`,
    tool_name: 'Bash',
    tool_call_id: 'call_1',
  });
  const uuid = task.uuid;
  task.close();
  return { store, uuid };
}

describe('writeHtml', () => {
  it('writes one page that loads nothing, with every message and its tool calls folded', async () => {
    const { store, uuid } = seeded();
    const out = collect();
    const result = await writeHtml(store, uuid, out.sink, { redaction: {}, version: '9.9.9' });
    const page = out.text();
    expect(result.messages).toBe(4);
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain(`content="default-src 'none'; style-src 'unsafe-inline'`);
    // Nothing that could load: no script element, no src, no link to another page or host.
    expect(page).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|url\(/i);
    expect(page).not.toMatch(/href="(?!#)/);
    // Text from the task is escaped, never markup.
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&lt;b&gt;now&lt;/b&gt;');
    expect(page.match(/<article /g)).toHaveLength(4);
    expect(page).toMatch(/<details class="call"><summary>Tool call <span class="tool-name">Bash/);
    expect(page).toMatch(/<article class="msg tool" id="seq-\d+">.*<details><summary>2 lines/);
    expect(page).toContain('Exported by Context Workbench 9.9.9');
    store.close();
  });

  it('redacts by pattern everywhere (title, text, arguments, outputs) and says so before the messages', async () => {
    const { store, uuid } = seeded();
    const out = collect();
    const result = await writeHtml(store, uuid, out.sink, {
      redaction: { homeFolders: { home: '/nowhere' } },
      version: '1',
    });
    const page = out.text();
    expect(page).not.toContain(KEY);
    expect(page).not.toContain(TOKEN);
    expect(page).not.toContain(KEY.slice(8, 30));
    expect(page).not.toContain('/home/alice');
    expect(page).toContain('~/shop');
    // The bearer header carries a GitHub token: named by the more telling kind.
    expect(result.redactions).toEqual({
      'anthropic-key': { places: 2, secrets: 1 },
      'github-token': { places: 2, secrets: 1 },
      'home-folder': { places: 1, secrets: 1 },
    });
    const note = page.indexOf('<strong>Redacted.</strong>');
    expect(note).toBeGreaterThan(0);
    expect(note).toBeLessThan(page.indexOf('<article'));
    expect(page).toContain(
      'Removed before export: 1 Anthropic API key (in 2 places), 1 GitHub token (in 2 places), home folders in 1 place.',
    );
    store.close();
  });

  it('says plainly when a page was not redacted, and keeps the text as it is', async () => {
    const { store, uuid } = seeded();
    const out = collect();
    const result = await writeHtml(store, uuid, out.sink, { redaction: null, version: '1' });
    expect(result.redactions).toBeNull();
    expect(out.text()).toContain('<strong>Not redacted.</strong>');
    expect(out.text()).toContain(KEY);
    store.close();
  });

  it('marks a bad line where it was and goes on', async () => {
    const { store, uuid } = seeded();
    const file = path.join(store.taskPath(store.requireTask(uuid)), 'messages.jsonl');
    const fs = await import('node:fs');
    fs.appendFileSync(file, '{"role": broken\n');
    const out = collect();
    const result = await writeHtml(store, uuid, out.sink, { redaction: {}, version: '1' });
    expect(result.messages).toBe(4);
    expect(result.bad).toHaveLength(1);
    expect(out.text()).toMatch(/<p class="bad">messages\.jsonl line 5 could not be read/);
    store.close();
  });
});

describe('html messageBlock', () => {
  it('cuts a very long message on the page without splitting a character, and says how much is left', async () => {
    const { messageBlock, MAX_SHOWN_CHARS } = await import('./html-format');
    const content = `${'a'.repeat(MAX_SHOWN_CHARS - 1)}😀${'b'.repeat(500)}`;
    const block = messageBlock(
      { seq: 7, role: 'user', content, timestamp: '2026-01-01T00:00:00.000Z', tokens: 1 },
      (text) => text,
    );
    expect(block).not.toContain('\ud83d<');
    expect(block).toContain(`${'a'.repeat(20)}<span class="cut">… 502 more characters`);
  });
});
