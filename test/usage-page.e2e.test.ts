/**
 * The Usage page (issue 33) through a real `cwb serve` in Chromium, on real imported
 * sessions: its totals, tokens by kind, rows and top tasks equal `cwb usage --json` for the
 * same period; usage without a price reads "unknown", never $0; the page is reached by the
 * keyboard from the navigation; both languages and themes at 900×700.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { UsageReport } from '../src/shared/api/usage-api';
import { formatUsd } from '../src/shared/format-cost';
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
  await page.screenshot({ path: path.join(RESULTS, name), fullPage: true });
}

async function noProblems(page: Page, language: 'en' | 'ja'): Promise<void> {
  const problems = await screenProblems(page, language);
  expect(problems).toEqual({ clipped: [], overlapping: [], wrongLanguage: [] });
}

const n = (v: number): string => Math.round(v).toLocaleString('en-US');

/** The page's totals and tokens by kind, as shown. */
async function shownTotals(page: Page): Promise<Record<string, string | null>> {
  const text = (id: string) => page.getByTestId(id).textContent();
  return {
    cost: await text('usage-total-cost'),
    tasks: await text('usage-total-tasks'),
    tokens: await text('usage-total-tokens'),
    saved: await text('usage-saved'),
    input: await text('usage-tokens-input'),
    output: await text('usage-tokens-output'),
    cacheRead: await text('usage-tokens-cache-read'),
    cacheWrite: await text('usage-tokens-cache-write'),
  };
}

function expectedTotals(report: UsageReport): Record<string, string> {
  const { tokens, cost, tasks } = report.total;
  return {
    cost:
      formatUsd(cost.usd) +
      (cost.unknown_tokens > 0 ? ` + ${n(cost.unknown_tokens)} tokens without a price` : ''),
    tasks: n(tasks),
    tokens: n(tokens.input + tokens.output + tokens.cache_read + tokens.cache_write),
    saved: formatUsd(cost.saved_usd),
    input: n(tokens.input),
    output: n(tokens.output),
    cacheRead: n(tokens.cache_read),
    cacheWrite: n(tokens.cache_write),
  };
}

describe('the Usage page', () => {
  it('shows the same totals, rows and top tasks as cwb usage --json', async () => {
    const root = path.join(tempDir(), 'contexts');
    const imported = runCwb(
      [
        '--contexts',
        root,
        'import',
        realFixture('claude-code'),
        realFixture('swe-agent'),
        realFixture('gemini-cli'),
      ],
      { TZ: 'UTC' },
    );
    expect(imported.status, imported.stderr).toBe(0);
    const usage = (...args: string[]): UsageReport => {
      const run = runCwb(['--contexts', root, 'usage', '--top', '10', ...args, '--json'], {
        TZ: 'UTC',
      });
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as UsageReport;
    };
    const all = usage('--by', 'day');
    expect(all.total.cost.unknown_tokens).toBeGreaterThan(0);

    const s = await startServe(['--contexts', root], { TZ: 'UTC' });
    serves.push(s);
    const page = await browser().newPage({
      viewport: { width: 900, height: 700 },
      timezoneId: 'UTC',
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(s.url);
    await page.getByTestId('task-count').waitFor({ timeout: 30_000 });

    // The navigation's Usage link, by the keyboard.
    await page.locator('.app-nav a[href="#/usage"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/usage/);
    await page.locator('[data-name="usage-period"] button[data-value="all"]').click();
    await page.waitForURL(/period=all/);
    // The last 30 days' report shows first (today's import is in it): wait for all time's.
    await expect.poll(() => shownTotals(page), { timeout: 30_000 }).toEqual(expectedTotals(all));
    await page.locator('.usage-body[aria-busy="false"]').waitFor();
    const rowKeys = await page
      .locator('[data-testid="usage-rows"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key')));
    expect(rowKeys).toEqual(all.rows.map((r) => r.key).reverse());
    const top = await page
      .locator('[data-testid="usage-top"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-uuid')));
    expect(top).toEqual(all.top.map((t) => t.uuid));
    // A task without a price reads "unknown" in the top list, never $0.
    const unpriced = all.top.find((t) => t.usd === null);
    if (unpriced)
      expect(
        await page
          .locator(`[data-testid="usage-top"] tr[data-uuid="${unpriced.uuid}"] td`)
          .last()
          .textContent(),
      ).toBe('unknown');
    expect(await page.locator('.usage-chart-canvas canvas').count()).toBe(1);
    await noProblems(page, 'en');
    await shot(page, 'usage-page.png');
    // The tables below the chart, scrolled into view.
    await page.evaluate("document.querySelector('.usage-body').scrollTop = 1e6");
    await noProblems(page, 'en');
    await shot(page, 'usage-page-end.png');

    // By month, over custom days: the CLI's figures for the same days.
    const sept = usage('--by', 'month', '--since', '2025-09-01', '--until', '2025-09-30');
    await page.goto(s.url + '#/usage?period=custom&since=2025-09-01&until=2025-09-30&by=month');
    await expect.poll(() => shownTotals(page), { timeout: 30_000 }).toEqual(expectedTotals(sept));
    await page.locator('.usage-body[aria-busy="false"]').waitFor();
    expect(await page.locator('[data-testid="usage-rows"] tbody tr').count()).toBe(
      sept.rows.length,
    );
    await noProblems(page, 'en');

    // Japanese, dark, split by agent.
    await page.locator('[data-name="language"] button[data-value="ja"]').click();
    await page.locator('[data-name="theme"] button[data-value="dark"]').click();
    await page.locator('[data-name="usage-split"] button[data-value="agent"]').click();
    await page.waitForURL(/split=agent/);
    await page.getByText('キャッシュヒット率').waitFor();
    await page.locator('.usage-body[aria-busy="false"]').waitFor();
    await noProblems(page, 'ja');
    await shot(page, 'usage-page-ja-dark.png');
    await page.evaluate("document.querySelector('.usage-body').scrollTop = 1e6");
    await noProblems(page, 'ja');
    await shot(page, 'usage-page-ja-dark-end.png');
    expect(errors).toEqual([]);
  }, 180_000);
});
