/**
 * Searching every message from the task list (issue 33), through a real `cwb serve` in
 * Chromium on real imported sessions: grouped hits that agree with `cwb search --json`, the
 * keyboard from the field to a hit, Enter landing on that message in the timeline with the
 * match marked, the way back, an exact path, no matches, both languages and themes at 900×700.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSearchResult } from '../src/shared/api/search-api';
import { realFixture } from './support/real-fixtures';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { screenProblems } from './support/screen-checks';
import { startServe, type ServeProcess } from './support/serve-process';
import { useChromium } from './support/use-chromium';
import { useTempDir } from './support/temp-dir';

const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
const serves: ServeProcess[] = [];
afterEach(async () => {
  for (const s of serves.splice(0)) await s.stop();
});

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, name) });
}

async function noProblems(page: Page, language: 'en' | 'ja'): Promise<void> {
  const problems = await screenProblems(page, language);
  expect(problems).toEqual({ clipped: [], overlapping: [], wrongLanguage: [] });
}

describe('message search on the task list', () => {
  it('groups hits by task, and Enter opens the timeline at the hit with the match marked', async () => {
    const root = path.join(tempDir(), 'contexts');
    const imported = runCwb([
      '--contexts',
      root,
      'import',
      realFixture('claude-code'),
      realFixture('swe-agent'),
    ]);
    expect(imported.status, imported.stderr).toBe(0);
    const search = (...args: string[]): SessionSearchResult => {
      const run = runCwb(['--contexts', root, 'search', ...args, '--json']);
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as SessionSearchResult;
    };
    const cli = search('readme');
    const sessions = [...new Set(cli.hits.map((h) => h.uuid))];
    expect(sessions.length).toBeGreaterThan(2);

    const s = await startServe(['--contexts', root]);
    serves.push(s);
    const page = await browser().newPage({ viewport: { width: 900, height: 700 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(s.url);
    await page.getByTestId('task-count').waitFor({ timeout: 30_000 });

    // The scope control turns the box to messages; / focuses it from the list.
    await page.locator('[data-name="search-scope"] button[data-value="messages"]').click();
    const field = page.locator('input[name="message-query"]');
    await field.waitFor();
    await page.locator('body').click({ position: { x: 5, y: 690 } });
    await page.keyboard.press('/');
    expect(await page.evaluate<string>("document.activeElement?.getAttribute('name')")).toBe(
      'message-query',
    );
    await page.keyboard.type('readme');
    const summary = page.getByTestId('message-search-summary');
    await expect
      .poll(() => summary.textContent(), { timeout: 30_000 })
      .toBe(`${cli.hits.length} messages in ${sessions.length} tasks`);

    // One group per task, in the API's order, each with its hits and their count.
    const groups = page.locator('.msg-group');
    expect(await groups.evaluateAll((els) => els.map((e) => e.getAttribute('data-uuid')))).toEqual(
      sessions,
    );
    const firstCount = cli.hits.filter((h) => h.uuid === sessions[0]).length;
    expect(await groups.first().locator('.msg-hit').count()).toBe(firstCount);
    expect(await groups.first().locator('.msg-count').textContent()).toBe(
      firstCount === 1 ? '1 hit' : `${firstCount} hits`,
    );
    expect((await page.locator('.msg-hit mark').first().textContent())!.toLowerCase()).toBe(
      'readme',
    );
    await noProblems(page, 'en');
    await shot(page, 'message-search.png');

    // ↓ from the field to the first hit, ↓ to the second, Enter opens it.
    await field.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const target = cli.hits[1]!;
    const focused = page.locator('.msg-hit:focus');
    expect(await focused.getAttribute('data-seq')).toBe(String(target.seq));
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/task/${target.uuid}/timeline\\?seq=${target.seq}&`));
    const mark = page.locator(`.tv-target [data-seq="${target.seq}"] mark.tv-match`).first();
    await mark.waitFor({ timeout: 30_000 });
    const matched = target.snippet.slice(...target.match!);
    expect(await mark.textContent()).toBe(matched);
    expect(await mark.isVisible()).toBe(true);
    await shot(page, 'message-search-timeline.png');

    // Esc goes back to the same hits, the cursor on the one opened.
    await page.keyboard.press('Escape');
    await page.locator('.msg-hit[data-active]').waitFor();
    expect(await page.locator('.msg-hit[data-active]').getAttribute('data-seq')).toBe(
      String(target.seq),
    );
    await expect
      .poll(() => page.locator('.msg-hit:focus').getAttribute('data-seq'))
      .toBe(String(target.seq));

    // The first hit sits deep in a long message (line 118 of a task statement): the jump
    // brings the match itself into the window, not only the message's head.
    const deep = cli.hits[0]!;
    await page.keyboard.press('ArrowUp');
    expect(await page.locator('.msg-hit:focus').getAttribute('data-seq')).toBe(String(deep.seq));
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/task/${deep.uuid}/timeline\\?seq=${deep.seq}&`));
    const deepMark = page.locator(`.tv-target [data-seq="${deep.seq}"] mark.tv-match`).first();
    await deepMark.waitFor({ timeout: 30_000 });
    await expect
      .poll(async () => {
        const box = await deepMark.boundingBox();
        return box !== null && box.y >= 0 && box.y + box.height <= 700;
      })
      .toBe(true);
    await shot(page, 'message-search-deep.png');
    await page.keyboard.press('Escape');
    await field.waitFor();

    // Exact: a path as typed, filtered to an agent.
    const exact = search('pydicom/dataset.py', '--exact', '--agent', 'swe-agent');
    await field.fill('pydicom/dataset.py');
    await page.locator('button[name="exact"]').click();
    await page.locator('select[name="agent"]').selectOption('swe-agent');
    await expect
      .poll(() => summary.textContent(), { timeout: 30_000 })
      .toBe(
        exact.hits.length === 1 ? '1 message in 1 task' : `${exact.hits.length} messages in 1 task`,
      );
    expect(await page.locator('.msg-hit mark').first().textContent()).toBe('pydicom/dataset.py');

    // Nothing matches: said so.
    await field.fill('qqqzzzxxy');
    await page.getByText('No messages match').waitFor({ timeout: 30_000 });
    await noProblems(page, 'en');
    await shot(page, 'message-search-none.png');

    // Japanese, dark.
    await field.fill('readme');
    await page.locator('button[name="exact"]').click();
    await page.getByText('Clear', { exact: true }).click();
    await page.locator('[data-name="language"] button[data-value="ja"]').click();
    await page.locator('[data-name="theme"] button[data-value="dark"]').click();
    await expect
      .poll(() => summary.textContent(), { timeout: 30_000 })
      .toBe(`${sessions.length} 件のタスクで ${cli.hits.length} 件のメッセージ`);
    await noProblems(page, 'ja');
    await shot(page, 'message-search-ja-dark.png');
    expect(errors).toEqual([]);
  }, 180_000);
});
