import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { rawRequest } from '../src/core/web/test-support/raw-http';
import { useChromium } from './support/use-chromium';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { REAL_FIXTURES } from './support/real-fixtures';
import { startScriptedLlm, type RecordedRequest } from './support/scripted-llm-server';
import { startServe, type ServeProcess } from './support/serve-process';
import { makeTaskEnv } from './support/task-env';
import { useTempDir } from './support/temp-dir';

/**
 * The task view end to end (issue 6): a real `cwb serve`, the built UI, Debian's Chromium,
 * on imported real transcripts, a task run against the scripted LLM that compacts, and a
 * generated 200,000-message task. Screenshots go to test-results/ to be looked at.
 */

const FIXTURES = REAL_FIXTURES;
const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const s = await startServe(args, env);
  cleanups.push(() => s.stop());
  return s;
}

async function call<T>(s: ServeProcess, op: string, body: unknown): Promise<T> {
  const res = await rawRequest(s.port, {
    method: 'POST',
    path: `/api/${op}`,
    headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const parsed = JSON.parse(res.body) as { ok: boolean; value: T; error?: unknown };
  if (!parsed.ok) throw new Error(`${op}: ${JSON.stringify(parsed.error)}`);
  return parsed.value;
}

async function openPage(
  s: ServeProcess,
  hash: string,
  theme?: 'light' | 'dark',
  beforeOpen?: (page: Page) => Promise<void>,
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser().newPage({
    viewport: { width: 1360, height: 900 },
    ...(theme && { colorScheme: theme }),
  });
  await beforeOpen?.(page);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on(
    'response',
    (r) =>
      r.status() >= 400 && errors.push(`${r.status()} ${r.url()} ${r.request().postData() ?? ''}`),
  );
  await page.goto(s.url);
  await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
  cleanups.push(() => page.close());
  return { page, errors };
}

/**
 * Waits for `locator`; when it does not come, says what the timeline shows instead (the
 * scroll position, the rows on the page and the address) and takes a screenshot.
 */
async function waitOrDescribe(page: Page, locator: Locator, screenshot: string): Promise<void> {
  try {
    await locator.waitFor({ timeout: 30_000 });
  } catch (error) {
    const seen = await page.evaluate(`({
      url: location.href,
      scrollY: window.scrollY,
      pageHeight: document.documentElement.scrollHeight,
      listTop: document.querySelector('.tv-timeline')?.getBoundingClientRect().top,
      rows: [...document.querySelectorAll('.tv-slot')].map((slot) =>
        slot.dataset.index + (slot.classList.contains('tv-target') ? ' (target)' : '') + ': ' +
        (slot.querySelector('.tv-row')?.dataset.seq ?? 'loading')),
      panel: document.querySelector('.tv-tab-body .state-panel')?.textContent,
    })`);
    await shot(page, screenshot);
    throw new Error(`${String(error)}\nthe page instead: ${JSON.stringify(seen)}`, {
      cause: error,
    });
  }
}

async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, name), fullPage });
}

describe('the task view in Chromium', () => {
  it('shows an imported Claude Code session: header, chart, timeline with paired tool results, search, planning and tools tabs', async () => {
    const root = path.join(tempDir(), 'contexts');
    const file = path.join(FIXTURES, 'claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');
    const r = runCwb(['--contexts', root, 'import', file]);
    expect(r.status, r.stderr).toBe(0);
    const s = await serve(['--contexts', root]);
    const tasks = await call<{ rows: { uuid: string; title: string; total_messages: number }[] }>(
      s,
      'queryTasks',
      { sort: 'total_messages', order: 'desc' },
    );
    const task = tasks.rows[0]!;
    const { page, errors } = await openPage(s, `#/task/${task.uuid}/timeline`);

    await page.locator('.tv-header h2').waitFor({ timeout: 30_000 });
    await page.locator('.tv-row').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('.tv-stats dd').first().textContent()).toBe(
      task.total_messages.toLocaleString('en'),
    );
    await page.locator('.tv-chart canvas').first().waitFor();
    // The stretch before the first provider figure counts message text only: named as such.
    expect(await page.locator('.tv-chart-legend').textContent()).toContain(
      'before the first provider figure: message text only',
    );
    const roles = await page
      .locator('.tv-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-role')));
    expect(roles).toContain('user');
    expect(roles).toContain('assistant');
    await shot(page, 'task-view-imported.png');

    // A tool result sits under its call, labelled with the tool's name.
    const toolRow = page.locator('.tv-row[data-role="tool"]').first();
    if ((await toolRow.count()) > 0)
      expect(await toolRow.locator('.tv-tool-of').textContent()).toMatch(/result/);
    // ...and each call links down to its result.
    const resultLink = page.locator('.tv-call .tv-result-link').first();
    await resultLink.waitFor();
    const resultSeq = Number(/#(\d+)/.exec((await resultLink.textContent()) ?? '')![1]);
    expect(await page.locator(`.tv-row[data-seq="${resultSeq}"]`).getAttribute('data-role')).toBe(
      'tool',
    );

    // Search within the task; a hit jumps the timeline (and the route) to its seq.
    await page.getByRole('searchbox').fill('the');
    await page.getByRole('searchbox').press('Enter');
    const hit = page.locator('.tv-hit').nth(3);
    await hit.waitFor({ timeout: 15_000 });
    const seq = Number((await hit.locator('.tv-seq').textContent())!.slice(1));
    await hit.click();
    await expect.poll(() => page.url()).toContain(`seq=${seq}`);
    await page.locator(`.tv-target .tv-row[data-seq="${seq}"]`).waitFor({ timeout: 15_000 });
    await shot(page, 'task-view-search.png');

    // What the model sees now.
    await page.getByRole('tab', { name: 'What the model sees now' }).click();
    await expect.poll(() => page.url()).toContain('view=current');
    await page.locator('.tv-row').first().waitFor();
    expect(await page.locator('.tv-row .tv-seq').first().textContent()).toMatch(/^line 1$/);

    await page.getByRole('tab', { name: 'Tool calls' }).click();
    // The tab's code loads when it opens: its rows, not the loading panel, are the picture.
    await page.locator('.tv-tools tbody tr').first().waitFor();
    await shot(page, 'task-view-tools.png');
    await page.getByRole('tab', { name: 'Planning' }).click();
    await page.locator('.tv-planning, .state-panel').first().waitFor();

    // Japanese UI (and Japanese content where the session has it).
    await page.evaluate(`localStorage.setItem('cwb.ui', '{"theme":"dark","language":"ja"}')`);
    await page.evaluate(`window.location.hash = '#/task/${task.uuid}/timeline'`);
    await page.reload();
    await page.locator('.tv-row').first().waitFor({ timeout: 30_000 });
    expect(await page.getByRole('tab', { name: 'タイムライン' }).count()).toBe(1);
    // Numbers, roles and durations in Japanese too.
    expect(await page.locator('.tv-row[data-role="user"] .tv-role').first().textContent()).toBe(
      'ユーザー',
    );
    expect(await page.locator('.tv-stats div').last().locator('dd').textContent()).toMatch(
      /^\d+(分|秒|時間)/,
    );
    await shot(page, 'task-view-imported-ja.png');
    expect(errors).toEqual([]);
  });

  it('marks the replies of a model changed mid-session (Codex) with that model, and only those', async () => {
    const root = path.join(tempDir(), 'contexts');
    const file = path.join(
      FIXTURES,
      'codex-subagents',
      'rollout-2026-11-21T10-02-00-019ab3c1-7e2a-7d40-9c11-5f6a7b8c9d01.jsonl',
    );
    const r = runCwb(['--contexts', root, 'import', file]);
    expect(r.status, r.stderr).toBe(0);
    const s = await serve(['--contexts', root]);
    const tasks = await call<{ rows: { uuid: string; model: string; total_messages: number }[] }>(
      s,
      'queryTasks',
      {},
    );
    const task = tasks.rows[0]!;
    expect(task.model).toBe('gpt-5.1-codex');
    // The timeline at its last message (the second turn's reply), the first turn's above it.
    const last = task.total_messages;
    const { page, errors } = await openPage(s, `#/task/${task.uuid}/timeline?seq=${last}`);
    await page.locator(`.tv-row[data-seq="${last}"]`).waitFor({ timeout: 30_000 });
    const rows = await page.locator('.tv-row').evaluateAll((els) =>
      els.map((el) => ({
        seq: Number(el.getAttribute('data-seq')),
        role: el.getAttribute('data-role'),
        model: el.querySelector('[data-testid="reply-model"]')?.textContent ?? null,
      })),
    );
    const marked = rows.filter((row) => row.model !== null);
    expect(marked.map((row) => row.seq)).toContain(last);
    expect(
      marked.every((row) => row.role === 'assistant' && row.model === 'gpt-5.1-codex-max'),
    ).toBe(true);
    // The first turn ran on the task's own model: its replies carry no badge.
    const firstMarked = Math.min(...marked.map((row) => row.seq));
    expect(rows.some((row) => row.role === 'assistant' && row.seq < firstMarked)).toBe(true);
    await page.locator(`.tv-row[data-seq="${firstMarked}"]`).scrollIntoViewIfNeeded();
    await shot(page, 'task-view-model-change.png');
    expect(errors).toEqual([]);
  });

  it('waits for a task opened a moment before it is readable (not_found is retried), never showing the error state', async () => {
    // A task that exists in one root, exported; the page opens it in another root first.
    const source = path.join(tempDir(), 'source');
    const imported = runCwb([
      '--contexts',
      source,
      'import',
      path.join(FIXTURES, 'swe-agent', 'pydicom__pydicom-1458.traj'),
    ]);
    expect(imported.status, imported.stderr).toBe(0);
    const listed = runCwb(['--contexts', source, 'tasks', '--json']);
    const uuid = /"uuid":\s*"([0-9a-f-]{36})"/.exec(listed.stdout)![1]!;
    const archive = path.join(tempDir(), 'task.zip');
    const exported = runCwb(['--contexts', source, 'export', uuid, '-o', archive]);
    expect(exported.status, exported.stderr).toBe(0);

    const s = await serve(['--contexts', path.join(tempDir(), 'contexts')]);
    const page = await browser().newPage({ viewport: { width: 1360, height: 900 } });
    cleanups.push(() => page.close());
    // Records whether the error state was ever on screen, even for one frame.
    await page.addInitScript(`
      new MutationObserver(() => {
        if (document.querySelector('.state-error')) window.sawError = true;
      }).observe(document, { childList: true, subtree: true });
    `);
    await page.goto(s.url);
    await page.locator('.task-filters').waitFor({ timeout: 30_000 });
    const firstAnswer = page.waitForResponse((r) => r.url().endsWith('/api/getTask'));
    await page.evaluate(`window.location.hash = '#/task/${uuid}/timeline'`);
    expect(await (await firstAnswer).text()).toContain('not_found');
    await call(s, 'importFiles', { paths: [archive] });
    await page.locator('.tv-header h2').waitFor({ timeout: 30_000 });
    expect(await page.locator('.tv-header h2').textContent()).toContain('pydicom');
    expect(await page.evaluate('Boolean(window.sawError)')).toBe(false);
  }, 180_000);

  it('runs a task against the scripted LLM that compacts once: the summary row shows tokens before → after and the chart mark opens the diff page', async () => {
    const base = tempDir();
    const llm = await startScriptedLlm({
      flavor: 'ollama',
      script: (request: RecordedRequest, index: number) => {
        const body = request.body as { tools?: unknown[] };
        if (!body.tools) return { content: 'Read three files; all done.' };
        const step = index + 1;
        if (step <= 3)
          return {
            tool_calls: [{ name: 'read_file', arguments: { path: `f${step}.txt` } }],
            usage: { prompt_tokens: 1000 + 7000 * (step - 1), completion_tokens: 12 },
          };
        return {
          content: 'All three files are read.',
          usage: { prompt_tokens: 9000, completion_tokens: 7 },
        };
      },
    });
    cleanups.push(() => llm.close());
    const env = makeTaskEnv(base, {
      provider: 'ollama',
      url: llm.url,
      model: 'qwen3:8b',
      extraYaml:
        'context_storage:\n  compression_threshold: 0.3\n  keep_recent_messages: 2\n  min_messages_to_summarize: 2\ncompaction:\n  pipeline: [extractive]\n',
    });
    for (let i = 1; i <= 3; i++)
      fs.writeFileSync(`${env.workdir}/f${i}.txt`, `line of file ${i}\n`.repeat(1800));
    const s = await serve(['--contexts', env.root, '--config', env.configFile]);
    const { uuid } = await call<{ uuid: string }>(s, 'startTask', {
      prompt: 'Read f1.txt, f2.txt and f3.txt',
      workdir: env.workdir,
    });
    // The task process creates the row: open the page once it exists.
    await expect
      .poll(
        () =>
          call(s, 'getTask', { uuid }).then(
            () => true,
            () => false,
          ),
        { timeout: 30_000 },
      )
      .toBe(true);
    const { page, errors } = await openPage(s, `#/task/${uuid}/timeline`);
    await page.locator('.tv-header h2').waitFor({ timeout: 30_000 });
    // Live: the status moves to completed without a reload.
    await page.locator('.tv-status[data-status="completed"]').waitFor({ timeout: 60_000 });

    const compactions = await call<{
      records: { id: number; tokens_before: number; created_seqs: number[] }[];
    }>(s, 'listCompactions', { uuid });
    expect(compactions.records.length).toBeGreaterThanOrEqual(1);
    const first = compactions.records[0]!;
    // Jump to the summary the compaction created: it is a distinct row.
    await page.getByRole('textbox', { name: 'Jump to seq' }).fill(String(first.created_seqs[0]));
    await page.getByRole('button', { name: 'Go' }).click();
    const summary = page.locator('.tv-kind-summary').first();
    await summary.waitFor({ timeout: 30_000 });
    const label = await summary.locator('.tv-compaction-tokens').textContent();
    expect(label).toContain(`${first.tokens_before.toLocaleString('en')} → `);
    await page.locator('.tv-mark').first().waitFor({ timeout: 15_000 });
    const usage = await call<{ sources: string[]; compactions: unknown[] }>(s, 'contextUsage', {
      uuid,
    });
    expect(usage.sources).toContain('provider');
    expect(usage.sources).toContain('estimate');
    await summary.scrollIntoViewIfNeeded();
    await shot(page, 'task-view-compacted.png');

    await page.getByRole('tab', { name: /Compactions/ }).click();
    await page.locator('.cmp-controls').waitFor();
    await shot(page, 'task-view-compactions-tab.png');
    await page.getByRole('tab', { name: 'Tool calls' }).click();
    const row = page.locator('.tv-tools tbody tr.tv-clickable').first();
    await row.waitFor();
    await row.click();
    await expect.poll(() => page.url()).toMatch(/\/timeline\?seq=\d+/);
    await page.locator('.tv-target .tv-row[data-role="assistant"]').waitFor();

    // Errors are checked before leaving: the diff page belongs to the compaction feature.
    expect(errors).toEqual([]);
    await page.locator('.tv-mark').first().click();
    await expect.poll(() => page.url()).toContain(`/task/${uuid}/compaction/${first.id}`);
  });

  it('follows a running task from its end without blanking rows it already showed', async () => {
    const base = tempDir();
    const TURNS = 6;
    const llm = await startScriptedLlm({
      flavor: 'ollama',
      script: (_request: RecordedRequest, index: number) =>
        index < TURNS
          ? {
              tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
              delayMs: 700,
            }
          : { content: 'Read it six times.', delayMs: 700 },
    });
    cleanups.push(() => llm.close());
    const env = makeTaskEnv(base, { provider: 'ollama', url: llm.url });
    const s = await serve(['--contexts', env.root, '--config', env.configFile]);
    const { uuid } = await call<{ uuid: string }>(s, 'startTask', {
      prompt: 'Read notes.txt six times',
      workdir: env.workdir,
    });
    const page = await browser().newPage({ viewport: { width: 1360, height: 900 } });
    cleanups.push(() => page.close());
    // A row once shown with its message must never fall back to the loading placeholder
    // while the task grows (each live event re-reads the newest window).
    await page.addInitScript(`
      window.maxShown = -1;
      window.blanked = [];
      window.chartsRebuilt = 0;
      new MutationObserver((changes) => {
        // The chart takes new data in place: rebuilding it shrinks the page for a moment,
        // which pulls a reader scrolled down the timeline back to the top.
        for (const change of changes)
          for (const node of change.removedNodes)
            if (node.classList && node.classList.contains('uplot')) window.chartsRebuilt++;
        for (const slot of document.querySelectorAll('.tv-slot')) {
          const index = Number(slot.dataset.index);
          if (slot.querySelector('.tv-row-loading')) {
            if (index <= window.maxShown) window.blanked.push(index);
          } else if (index > window.maxShown) window.maxShown = index;
        }
      }).observe(document, { childList: true, subtree: true });
    `);
    await page.goto(s.url);
    await page.evaluate(`window.location.hash = '#/task/${uuid}/timeline'`);
    // The reader goes to the end while the task runs: new messages keep it there.
    const timeline = page.locator('.tv-timeline');
    const total = async (): Promise<number> => Number(await timeline.getAttribute('data-total'));
    // The page scrolls as one: the window, not the timeline, is the scroller; "at the end"
    // is the timeline's end in view.
    const fromEnd = (): Promise<number> =>
      page.evaluate(
        "document.querySelector('.tv-timeline').getBoundingClientRect().bottom - innerHeight",
      );
    const scrollToEnd = (): Promise<void> =>
      page.evaluate(
        '(() => { const el = document.scrollingElement; el.scrollTo(0, el.scrollHeight); })()',
      );
    await expect.poll(total, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    await scrollToEnd();
    await expect
      .poll(async () => (await total()) >= 10 && (await fromEnd()) < 48, { timeout: 30_000 })
      .toBe(true);
    // Scrolled back up by the reader (their wheel: the page moving up by itself, as it does
    // when the chart or a measured row makes room above, never stops following), the reader
    // stays where they are as the task finishes.
    await page.mouse.move(680, 450);
    await page.mouse.wheel(0, -100_000);
    await expect.poll(() => page.evaluate('document.scrollingElement.scrollTop')).toBe(0);
    await page.locator('.tv-status[data-status="completed"]').waitFor({ timeout: 60_000 });
    await expect.poll(total).toBe(3 + 2 * TURNS);
    expect(await page.evaluate('document.scrollingElement.scrollTop')).toBe(0);
    await scrollToEnd();
    await page.getByText('Read it six times.').waitFor({ timeout: 15_000 });
    // system, user, 6 × (assistant call + tool result), the final answer: 15 rows.
    expect(await page.evaluate('window.maxShown')).toBe(2 + 2 * TURNS);
    expect(await page.evaluate('window.blanked')).toEqual([]);
    expect(await page.evaluate('window.chartsRebuilt')).toBe(0);
  }, 120_000);

  it('opens a generated 200,000-message task at once, jumps to seq 150000 and holds it there while the page settles', async () => {
    const root = path.join(tempDir(), 'contexts');
    const store = ContextStore.open(root);
    const task = store.createTask({ title: 'Generated: 200,000 messages' });
    task.close();
    const file = path.join(task.dir, 'messages.jsonl');
    const fd = fs.openSync(file, 'a');
    const TOTAL = 200_000;
    let chunk: string[] = [];
    for (let seq = 1; seq <= TOTAL; seq++) {
      const role = seq === 1 ? 'system' : seq % 2 === 0 ? 'user' : 'assistant';
      chunk.push(
        JSON.stringify({
          seq,
          role,
          content: `message ${seq}: ${seq % 7 === 0 ? 'a longer line of generated text '.repeat(4) : 'short'}`,
          timestamp: new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(),
          tokens: 20 + (seq % 13),
          tokens_o200k: 18,
          ...(role === 'assistant' &&
            seq % 50 === 1 && {
              usage: {
                input_tokens: (seq % 20_000) * 4,
                output_tokens: 10,
                cache_creation_tokens: 0,
                cache_read_tokens: 0,
                total_tokens: (seq % 20_000) * 4 + 10,
              },
            }),
        }),
      );
      if (chunk.length === 5000) {
        fs.writeSync(fd, chunk.join('\n') + '\n');
        chunk = [];
      }
    }
    fs.closeSync(fd);
    store.db.prepare('UPDATE tasks SET total_messages = ? WHERE uuid = ?').run(TOTAL, task.uuid);
    store.openTask(task.uuid).close(); // builds the offset index, as the first open would
    store.close();

    const s = await serve(['--contexts', root]);
    // The usage chart comes in only after the jump, as on a slow machine: it grows the page
    // above the target, which must stay where the reader asked for it.
    let chartMayCome = (): void => undefined;
    const chartHeld = new Promise<void>((resolve) => (chartMayCome = resolve));
    const { page, errors } = await openPage(
      s,
      `#/task/${task.uuid}/timeline`,
      'dark',
      async (p) => {
        await p.route(/\/api\/contextUsage$/, async (route) => {
          await chartHeld;
          await route.continue();
        });
      },
    );
    const started = Date.now();
    await page.locator('.tv-row[data-seq="1"]').waitFor({ timeout: 30_000 });
    const openedMs = Date.now() - started;
    expect(await page.locator('.tv-timeline').getAttribute('data-total')).toBe(String(TOTAL));
    // Only a window is on the page, never the task.
    expect(await page.locator('.tv-row').count()).toBeLessThan(60);

    await page.getByRole('textbox', { name: 'Jump to seq' }).fill('150000');
    await page.getByRole('button', { name: 'Go' }).click();
    const target = page.locator('.tv-target .tv-row[data-seq="150000"]');
    await waitOrDescribe(page, target, 'task-view-200k-jump-failed.png');
    expect(await target.locator('.tv-text').textContent()).toContain('message 150000:');
    expect(page.url()).toContain('seq=150000');
    // Where the target's row is in the window (null: scrolled off the virtualized page), and
    // how far from where a held target sits: 6 px below the top, room for its ring.
    const targetTop = (): Promise<number | null> =>
      page.evaluate(`document.querySelector('.tv-target')?.getBoundingClientRect().top ?? null`);
    const offHeld = async (): Promise<number> => Math.abs(((await targetTop()) ?? Infinity) - 6);
    await expect.poll(offHeld).toBeLessThan(2);

    chartMayCome();
    await page.locator('.tv-chart canvas').first().waitFor({ timeout: 30_000 });
    // The chart pushed everything below it down; the target is back at the top.
    await expect.poll(offHeld).toBeLessThan(2);
    await shot(page, 'task-view-200k-dark.png');
    // The reader's own scroll lets go of the target: the next growth does not pull it back.
    await page.mouse.move(600, 500);
    await page.mouse.wheel(0, 1500);
    await expect.poll(async () => (await targetTop()) ?? -Infinity).toBeLessThan(-1000);
    const toggleChart = (): Promise<unknown> =>
      page.evaluate(`document.querySelector('.tv-chart-toggle').click()`);
    await toggleChart();
    await page.locator('.tv-chart-strip').waitFor();
    await toggleChart();
    await page.locator('.tv-chart canvas').first().waitFor();
    await page.waitForTimeout(300); // a few frames: a hold still on would have answered by now
    expect((await targetTop()) ?? -Infinity).toBeLessThan(-1000);
    // Go again to the seq already in the address: the target comes back.
    await page.getByRole('button', { name: 'Go' }).scrollIntoViewIfNeeded();
    await page.getByRole('button', { name: 'Go' }).click();
    await expect.poll(offHeld).toBeLessThan(2);

    // In a short window the chart starts folded into a strip stuck to the top: a deep link's
    // target sits just below the strip, not under it.
    const short = await openPage(s, page.url().split('#')[1]!, 'dark', (p) =>
      p.setViewportSize({ width: 1360, height: 560 }),
    );
    const strip = short.page.locator('.tv-chart-strip');
    await strip.waitFor();
    await short.page.locator('.tv-target .tv-row[data-seq="150000"]').waitFor();
    const stripHeight = (await strip.boundingBox())!.height;
    const shortTop = (): Promise<number> =>
      short.page.evaluate(`document.querySelector('.tv-target').getBoundingClientRect().top`);
    await expect.poll(async () => Math.abs((await shortTop()) - stripHeight - 6)).toBeLessThan(2);
    expect((await strip.boundingBox())!.y).toBe(0);
    await shot(short.page, 'task-view-200k-short-window.png');
    expect(short.errors).toEqual([]);
    console.log(`200,000-message task: first row after ${openedMs} ms`);
    expect(errors).toEqual([]);
  }, 180_000);
});
