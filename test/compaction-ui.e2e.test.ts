import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { useChromium } from './support/use-chromium';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { REAL_FIXTURES } from './support/real-fixtures';
import { startServe, type ServeProcess } from './support/serve-process';
import { useTempDir } from './support/temp-dir';
import { callApi, openWithSession, pickOnlyStrategy } from './support/page-api';

/**
 * The compaction UI end to end on a real transcript: preview and run (offline, the
 * extractive digest), the summary diff page with its lost facts, undo. Screenshots go to
 * test-results/ to be looked at.
 */

const FIXTURES = REAL_FIXTURES;
const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
let serve: ServeProcess | undefined;

afterAll(async () => {
  await serve?.stop();
});

/** A screenshot of what a person sees, scrolled to `at` when given (full pages get too long to read). */
/** Sets the UI's remembered theme and language (runs in the page). */
function setUi(page: Page, ui: { theme: string; language: string }): Promise<void> {
  return page.evaluate((value) => {
    (
      globalThis as { localStorage?: { setItem(k: string, v: string): void } }
    ).localStorage?.setItem('cwb.ui', value);
  }, JSON.stringify(ui));
}

async function shot(page: Page, name: string, at?: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  if (at) await page.locator(at).first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(RESULTS, name) });
}

describe('compaction in the web workbench', () => {
  it('previews, runs, shows the summary diff with lost facts, and undoes', async () => {
    const root = path.join(tempDir(), 'contexts');
    const imported = runCwb([
      '--contexts',
      root,
      'import',
      path.join(FIXTURES, 'swe-agent', 'pydicom__pydicom-1458.traj'),
    ]);
    expect(imported.status, imported.stderr).toBe(0);
    serve = await startServe(['--contexts', root]);
    const page = await browser().newPage({ viewport: { width: 1360, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openWithSession(page, serve.url);
    const tasks = await callApi<{ rows: { uuid: string }[] }>(page, 'queryTasks', {});
    const uuid = tasks.rows[0]!.uuid;

    // The controls live in the task view's "compactions" tab (when the task view mounts them).
    await page.goto(`${serve.url.replace(/\/\?token=.*$/, '/')}#/task/${uuid}/compactions`);
    const controls = page.locator('.cmp-controls');
    const hasControls = await controls
      .waitFor({ timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
    let id: number;
    if (hasControls) {
      // choose the offline extractive digest alone
      await pickOnlyStrategy(controls, 'extractive');
      await controls.locator('#cmp-extractive-keep_recent_messages').fill('x');
      await controls.getByText('Enter a number.').waitFor();
      await controls.locator('#cmp-extractive-keep_recent_messages').fill('6');
      await controls.getByRole('button', { name: 'Preview', exact: true }).click();
      await controls.locator('.cmp-report').waitFor({ timeout: 30_000 });
      expect(await controls.locator('.cmp-report h3').textContent()).toMatch(/Preview/);
      expect(await controls.locator('.cmp-total').textContent()).toMatch(/saved/);
      await shot(page, 'compaction-controls-preview.png');
      await controls.getByRole('button', { name: 'Run', exact: true }).click();
      await controls.locator('tr[data-record]').first().waitFor({ timeout: 60_000 });
      await shot(page, 'compaction-controls-after-run.png');
      id = Number(await controls.locator('tr[data-record]').first().getAttribute('data-record'));
    } else {
      const run = await callApi<{ mode: string; report: { steps: { recordId?: number }[] } }>(
        page,
        'runCompaction',
        { uuid, strategies: ['extractive'], params: { extractive: { keep_recent_messages: 6 } } },
      );
      id = run.report.steps[0]!.recordId!;
    }
    expect(id).toBeGreaterThan(0);

    // The summary diff page.
    await page.goto(`${serve.url.replace(/\/\?token=.*$/, '/')}#/task/${uuid}/compaction/${id}`);
    await page.locator('.cmp-hero').waitFor({ timeout: 30_000 });
    expect(await page.locator('.cmp-hero h1').textContent()).toContain(`Compaction #${id}`);
    expect(await page.locator('.cmp-badge').first().textContent()).toBe('In effect');
    const replaced = page.locator('.cmp-split .cmp-column').first().locator('.cmp-msg');
    expect(await replaced.count()).toBeGreaterThan(1);
    const summary = page.locator('.cmp-split .cmp-column').nth(1).locator('.cmp-msg');
    expect(await summary.count()).toBeGreaterThan(0);
    expect(await summary.first().locator('.cmp-kind').textContent()).toBe('summary');
    // The lost facts are core's (compactionDiff's quality): kept/total per kind, then the
    // lost ones, or one plain line when nothing was lost (the digest's fact ledger keeps most).
    const diff = await callApi<{
      quality: { facts: { lostCount: number; byKind: Record<string, { total: number }> } };
    }>(page, 'compactionDiff', { uuid, id });
    const kinds = Object.values(diff.quality.facts.byKind).filter((k) => k.total > 0).length;
    expect(await page.locator('.cmp-lost-panel .cmp-kind-chip').count()).toBe(kinds);
    if (diff.quality.facts.lostCount === 0) {
      expect(await page.locator('.cmp-lost-panel .cmp-all-kept').textContent()).toMatch(
        /^Nothing was lost: all \d+ facts of the replaced span are still in the context\.$/,
      );
      expect(await page.locator('.cmp-lost-item').count()).toBe(0);
    } else {
      expect(await page.locator('.cmp-lost-item').count()).toBeGreaterThan(0);
      expect(await replaced.locator('mark.cmp-lost').count()).toBeGreaterThan(0);
    }
    expect(await page.locator('.cmp-breakdown-text').textContent()).toMatch(
      /^Compaction #\d+ took out or shortened/,
    );
    expect(await page.locator('.cmp-context .cmp-fold').count()).toBeGreaterThan(0);
    await shot(page, 'compaction-diff.png');
    await shot(page, 'compaction-diff-split.png', '.cmp-split');
    await shot(page, 'compaction-diff-context.png', '.cmp-context .cmp-panel-head');

    // Dark theme and Japanese, same page.
    await setUi(page, { theme: 'dark', language: 'ja' });
    await page.reload();
    await page.locator('.cmp-hero').waitFor({ timeout: 30_000 });
    expect(await page.locator('.cmp-lost-panel h2').textContent()).toContain('失われた事実');
    await shot(page, 'compaction-diff-dark-ja.png');
    await setUi(page, { theme: 'light', language: 'en' });

    // Undo: through the controls when mounted, else through the API; the record shows undone.
    if (hasControls) {
      await page.goto(`${serve.url.replace(/\/\?token=.*$/, '/')}#/task/${uuid}/compactions`);
      // the UI settings were switched back in storage: reload so the page reads them
      await page.reload();
      const row = page.locator(`.cmp-controls tr[data-record="${id}"]`);
      await row.getByRole('button', { name: 'Undo', exact: true }).click();
      await row.getByRole('alertdialog').waitFor();
      await shot(page, 'compaction-undo-confirm.png');
      await row.getByRole('alertdialog').getByRole('button', { name: 'Undo' }).click();
      await expect.poll(() => row.locator('.cmp-badge').textContent()).toBe('Undone');
    } else {
      await callApi(page, 'undoCompaction', { uuid, id });
    }
    await page.goto(`${serve.url.replace(/\/\?token=.*$/, '/')}#/task/${uuid}/compaction/${id}`);
    await page.reload();
    await page.locator('.cmp-hero').waitFor({ timeout: 30_000 });
    expect(await page.locator('.cmp-badge').first().textContent()).toBe('Undone');
    await shot(page, 'compaction-diff-undone.png');

    // An unknown compaction: the error state.
    await page.goto(`${serve.url.replace(/\/\?token=.*$/, '/')}#/task/${uuid}/compaction/999`);
    await page.locator('.cmp-state-error').waitFor({ timeout: 30_000 });
    await shot(page, 'compaction-diff-error.png');
    expect(errors).toEqual([]);
    console.log(`compaction controls mounted in the compactions tab: ${hasControls}`);
    await page.close();
  }, 240_000);
});
