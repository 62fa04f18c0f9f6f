import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { useChromium } from './support/use-chromium';
import { cachedGeneratedRoot } from './support/many-tasks';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { REAL_FIXTURES } from './support/real-fixtures';
import { startServe, type ServeProcess } from './support/serve-process';
import { useTempDir } from './support/temp-dir';

/** The task browser through a real `cwb serve` in Chromium; screenshots in test-results/. */

const FIXTURES = REAL_FIXTURES;
const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
const serves: ServeProcess[] = [];

afterEach(async () => {
  for (const s of serves.splice(0)) await s.stop();
});

async function serve(root: string): Promise<ServeProcess> {
  const s = await startServe(['--contexts', root]);
  serves.push(s);
  return s;
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, name) });
}

const rows = (page: Page) => page.locator('.task-row[data-uuid]');
const titles = (page: Page) => page.locator('.task-row[data-uuid] .title').allTextContents();

describe('the task browser', () => {
  it('lists imported tasks, sorts, filters, searches and opens a task from the keyboard', async () => {
    const root = path.join(tempDir(), 'contexts');
    for (const f of [
      'swe-agent/pydicom__pydicom-1458.traj',
      'codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
      'claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl',
    ]) {
      const r = runCwb(['--contexts', root, 'import', path.join(FIXTURES, f)]);
      expect(r.status, r.stderr).toBe(0);
    }
    const s = await serve(root);
    const page = await browser().newPage({ viewport: { width: 1440, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(s.url);
    await rows(page).first().waitFor({ timeout: 30_000 });
    const total = await rows(page).count();
    expect(total).toBeGreaterThan(2);
    await shot(page, 'browser-list.png');

    // sort by title ascending (server-side), then descending
    await page.locator('.sort-button[data-column="title"]').click();
    await expect.poll(async () => (await titles(page))[0]).toBeTruthy();
    const asc = await titles(page);
    expect(asc).toEqual([...asc].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    await page.locator('.sort-button[data-column="title"]').click();
    await expect.poll(async () => (await titles(page))[0]).toBe(asc[asc.length - 1]);

    // search on title/prompt
    await page.keyboard.press('/');
    expect(await page.evaluate<string>('document.activeElement?.className')).toContain(
      'search-input',
    );
    await page.keyboard.type('Subagent');
    await expect
      .poll(async () => (await titles(page)).every((t) => t.startsWith('Subagent')), {
        timeout: 10_000,
      })
      .toBe(true);
    const subagents = await rows(page).count();
    expect(subagents).toBeLessThan(total);
    await shot(page, 'browser-search.png');
    await page.locator('.task-filters .link-button').click();
    await expect.poll(() => rows(page).count()).toBe(total);

    // filter by a status chip and by a repository facet (once the counts are this query's)
    await page.locator('.status-chips[aria-busy="false"]').waitFor();
    const failed = await page.locator('.chip[data-status="completed"] .chip-count').textContent();
    await page.locator('.chip[data-status="completed"]').click();
    await expect.poll(() => rows(page).count()).toBe(Number(failed));
    await page.locator('.chip[data-status="completed"]').click();
    // The chips say "not busy" for a moment after the click, before the new query starts
    // (React runs the effect that starts it a task later): the rows prove it started.
    await expect.poll(() => rows(page).count()).toBe(total);
    await page.locator('.status-chips[aria-busy="false"]').waitFor();
    const repoOptions = await page.locator('select[name="repo"] option').allTextContents();
    expect(repoOptions.length).toBeGreaterThan(1);
    await page.locator('select[name="repo"]').selectOption({ index: 1 });
    const filteredCount = Number(/\((\d+)\)$/.exec(repoOptions[1]!)![1]);
    await expect.poll(() => rows(page).count()).toBe(filteredCount);
    await page.locator('select[name="repo"]').selectOption({ index: 0 });
    await expect.poll(() => rows(page).count()).toBe(total);

    // a date range that excludes everything shows the no-match state
    const to = page.locator('.day-input[data-day="to"]');
    await to.fill('2000-01-01');
    await to.press('Enter');
    await page.getByText('No task matches these filters').waitFor();
    expect(await to.inputValue()).toBe('Jan 1, 2000');
    expect(await page.getByTestId('task-count').textContent()).toBe('0 tasks');
    await shot(page, 'browser-no-match.png');
    await page.locator('.task-filters .link-button').click();
    await rows(page).first().waitFor();

    // keyboard: focus the grid, move down twice, Enter opens the task view
    await page.locator('.task-grid').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const third = await page.locator('.task-row.active').getAttribute('data-uuid');
    expect(await page.locator('.task-row.active').getAttribute('data-index')).toBe('2');
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/task/${third}/timeline`);
    // Back to the list: the cursor is where it was, and the keys go on from there.
    await page.getByRole('button', { name: '← All tasks' }).click();
    await rows(page).first().waitFor();
    expect(await page.locator('.task-row.active').getAttribute('data-uuid')).toBe(third);
    // From the search box, ↓ hands the keyboard to the list.
    await page.keyboard.press('/');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate<string>('document.activeElement?.className')).toContain('task-grid');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('stays fluid with 100,000 tasks: first rows at once, the last page on scrolling to the end', async () => {
    const root = cachedGeneratedRoot(100_000);
    const s = await serve(root);
    const page = await browser().newPage({ viewport: { width: 1440, height: 800 } });
    await page.goto(s.url);
    await rows(page).first().waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('task-count').textContent()).toContain('100,000');
    // virtualized: only a screenful of rows in the DOM
    expect(await page.locator('.task-row').count()).toBeLessThan(80);
    expect((await titles(page))[0]).toBe('Generated task #99999');
    await page.locator('.task-grid').focus();
    await page.keyboard.press('End');
    await expect
      .poll(async () => titles(page), { timeout: 15_000 })
      .toContainEqual('Generated task #0');
    await shot(page, 'browser-100k-end.png');
    // sorting 100,000 on the server answers quickly too
    await page.locator('.sort-button[data-column="tokens"]').click();
    await expect
      .poll(
        async () =>
          (await page.locator('.task-row[data-index="0"] .cell-tokens').textContent()) ?? '',
      )
      .toBe('49.1K');
    await page.close();
  }, 300_000);
});
