import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { useChromium } from './support/use-chromium';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { realFixture } from './support/real-fixtures';
import { startServe, type ServeProcess } from './support/serve-process';
import { useTempDir } from './support/temp-dir';
import { openWithSession } from './support/page-api';

/**
 * Issue 16's goal, walked with the keyboard alone: in a folder of imported sessions of four
 * agents, find the most expensive one, open it, read its third compaction's lost facts, and
 * export its current context. Then every screen of the path at 1400×900 and 900×700, light
 * and dark, English and Japanese, into test-results/ (and checked for clipping).
 */

const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
let serve: ServeProcess | undefined;

afterAll(async () => {
  await serve?.stop();
});

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.mouse.move(0, 0);
  await page.screenshot({ path: path.join(RESULTS, name) });
}

/**
 * Presses Tab until `matches` (a browser expression over the focused element `el`) holds:
 * a person tabbing to a control.
 */
async function tabTo(page: Page, matches: string, max = 80): Promise<void> {
  const source = `(() => { const el = document.activeElement; return !!el && (${matches}); })()`;
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(source)) return;
  }
  throw new Error(`Tab never reached the control (${matches})`);
}

const SIZES = [
  { width: 1400, height: 900 },
  { width: 900, height: 700 },
] as const;
const VARIANTS = [
  { theme: 'light', language: 'en' },
  { theme: 'dark', language: 'en' },
  { theme: 'dark', language: 'ja' },
] as const;

const focused = (page: Page, what: 'className' | 'textContent'): Promise<string> =>
  page.evaluate(`document.activeElement?.${what} ?? ''`);

describe('the reading path, keyboard only', () => {
  it('finds the most expensive session, reads its third compaction’s lost facts and exports its current context', async () => {
    const root = path.join(tempDir(), 'contexts');
    const imported = runCwb([
      '--contexts',
      root,
      'import',
      realFixture('claude-code'),
      realFixture('codex'),
      realFixture('openai-chat'),
      realFixture('swe-agent'),
    ]);
    expect(imported.status, imported.stderr).toBe(0);
    // The CLI carries the cost: the most expensive task by the shipped price table.
    const listed = runCwb([
      '--contexts',
      root,
      'tasks',
      '--json',
      '--sort',
      'cost',
      '--limit',
      '3',
    ]);
    const tasks = (
      JSON.parse(listed.stdout) as {
        tasks: { uuid: string; task_source: string; cost: { usd: number | null } }[];
      }
    ).tasks;
    const top = tasks[0]!;
    expect(top.cost.usd).toBeGreaterThan(0);
    expect(tasks[1]!.cost.usd!).toBeLessThanOrEqual(top.cost.usd!);
    // Three compactions: an importance window, then a quarter truncated twice (the third
    // hides 20 messages and loses facts).
    const config = path.join(tempDir(), 'config.yaml');
    fs.writeFileSync(config, 'compaction:\n  truncate:\n    fraction: 0.25\n');
    for (const strategy of ['importance-window', 'truncate', 'truncate']) {
      const run = runCwb([
        '--contexts',
        root,
        '--config',
        config,
        'compact',
        top.uuid,
        '--strategy',
        strategy,
      ]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(`${strategy} [compaction`);
    }
    const shown = JSON.parse(runCwb(['--contexts', root, 'show', top.uuid, '--json']).stdout) as {
      cost: { total: { usd: number }; models: { model: string }[] };
    };
    expect(shown.cost.total.usd).toBeCloseTo(top.cost.usd!, 6);
    expect(shown.cost.models[0]!.model).toMatch(/^claude-/);

    serve = await startServe(['--contexts', root]);
    const page = await browser().newPage({ viewport: { width: 1400, height: 900 } });
    await openWithSession(page, serve.url);

    // The list takes the keys as soon as it shows: no click.
    await page.locator('.task-row[data-uuid]').first().waitFor({ timeout: 30_000 });
    await expect.poll(() => focused(page, 'className')).toContain('task-grid');
    await page.keyboard.press('$');
    await expect
      .poll(() => page.locator('.task-row[data-index="0"]').getAttribute('data-uuid'))
      .toBe(top.uuid);
    await page.keyboard.press('j');
    await expect.poll(() => page.locator('.task-row.active').getAttribute('data-index')).toBe('1');
    await page.keyboard.press('k');
    await expect.poll(() => page.locator('.task-row.active').getAttribute('data-index')).toBe('0');
    expect(await page.getByTestId('cost-total').textContent()).toMatch(
      /^Cost \$\d+\.\d\d \+ \d+ unknown$/,
    );
    await shot(page, 'reading-list-by-cost-1400-light.png');
    await page.keyboard.press('Enter');
    await page.locator('.tv-header h2').waitFor();
    expect(page.url()).toContain(top.uuid);
    const costStat = page.locator('.tv-stats div', { hasText: 'Cost' }).locator('dd');
    expect(await costStat.textContent()).toMatch(/^\$\d+\.\d\d$/);

    // ] to the Compactions tab, Tab to the newest (third) compaction's diff, Enter.
    await page.keyboard.press(']');
    await page.locator('tr[data-record="3"]').waitFor({ timeout: 30_000 });
    await tabTo(page, `el.tagName === 'BUTTON' && el.closest('tr')?.dataset.record === '3'`);
    await page.keyboard.press('Enter');
    const lost = page.locator('.cmp-lost-panel');
    await lost.waitFor({ timeout: 60_000 });
    expect(page.url()).toMatch(/compaction\/3$/);
    await shot(page, 'reading-lost-facts-1400-light.png');
    await expect.poll(() => lost.locator('.cmp-lost-text').count()).toBeGreaterThan(0);

    // Esc back to the task, e to export, the current context, Enter.
    await page.keyboard.press('Escape');
    await page.locator('.tv-header h2').waitFor();
    await page.keyboard.press('e');
    const dialog = page.locator('dialog.export-dialog');
    await dialog.waitFor();
    await tabTo(page, `el.tagName === 'INPUT' && el.name === 'what'`);
    await page.keyboard.press('ArrowDown');
    expect(await dialog.locator('input[value="current"]').isChecked()).toBe(true);
    expect(await dialog.locator('select[name="format"]').inputValue()).toBe('markdown');
    expect(await dialog.locator('input[name="file-name"]').getAttribute('placeholder')).toBe(
      `${top.uuid.slice(0, 8)}-context.md`,
    );
    const download = page.waitForEvent('download');
    await tabTo(page, `el.tagName === 'BUTTON' && el.type === 'submit'`);
    await page.keyboard.press('Enter');
    const file = await download;
    expect(file.suggestedFilename()).toBe(`${top.uuid.slice(0, 8)}-context.md`);
    const saved = path.join(tempDir(), file.suggestedFilename());
    await file.saveAs(saved);
    const bytes = fs.statSync(saved).size;
    expect(bytes).toBeGreaterThan(0);
    await dialog.locator('.log-ok').waitFor();
    expect(await dialog.locator('.log-ok').textContent()).toMatch(/\(\d[\d.,]* [kKMG]?B\)$/);
    await shot(page, 'reading-export-current-1400-light.png');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // ? lists the keys; Esc closes it; Esc again goes back to the list, cursor kept.
    await page.keyboard.press('?');
    await page.locator('dialog.keys-overlay').waitFor();
    await shot(page, 'reading-keys-1400-light.png');
    await page.keyboard.press('Escape');
    await page.locator('dialog.keys-overlay').waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await page.locator('.task-row.active').waitFor();
    expect(await page.locator('.task-row.active').getAttribute('data-uuid')).toBe(top.uuid);

    // An unknown task: "not found" at once, its way back focused.
    await page.goto(
      `${serve.url.split('?')[0]}#/task/00000000-0000-4000-8000-000000000000/timeline`,
    );
    await page.getByTestId('not-found-back').waitFor();
    expect(await page.locator('.tv-header-loading').count()).toBe(0);
    await shot(page, 'reading-not-found-1400-light.png');
    await expect.poll(() => focused(page, 'textContent')).toBe('Back to the task list');
    await page.keyboard.press('Enter');
    await page.locator('.task-row[data-uuid]').first().waitFor();

    // Nothing cut off at 1400 px: the table needs no horizontal scroll, no header is clipped.
    const grid = page.locator('.task-grid');
    expect(await grid.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    const clipped = await page
      .locator('.sort-button')
      .evaluateAll((els) =>
        els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent),
      );
    expect(clipped).toEqual([]);

    // Every screen of the path, at two sizes, light and dark, English and Japanese.
    const base = serve.url.split('?')[0]!;
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      for (const ui of VARIANTS) {
        await page.evaluate(`localStorage.setItem('cwb.ui', '${JSON.stringify(ui)}')`);
        const tag = `${size.width}-${ui.theme}${ui.language === 'ja' ? '-ja' : ''}`;
        await page.goto(`${base}#/`);
        // A hash change does not reload: reload so the page reads the theme and language.
        await page.reload();
        await page.locator('.task-row[data-uuid]').first().waitFor();
        await page.keyboard.press('$');
        await expect
          .poll(() => page.locator('.task-row[data-index="0"]').getAttribute('data-uuid'))
          .toBe(top.uuid);
        await shot(page, `reading-list-${tag}.png`);
        await page.goto(`${base}#/task/${top.uuid}/timeline`);
        await page.locator('.tv-slot .tv-row').first().waitFor();
        await shot(page, `reading-task-${tag}.png`);
        await page.goto(`${base}#/task/${top.uuid}/compactions`);
        await page.locator('tr[data-record="3"]').waitFor();
        await shot(page, `reading-compactions-${tag}.png`);
        await page.goto(`${base}#/task/${top.uuid}/compaction/3`);
        await page.locator('.cmp-lost-panel .cmp-lost-text').first().waitFor({ timeout: 60_000 });
        await page.locator('.cmp-lost-panel').evaluate((el) => el.scrollIntoView());
        await shot(page, `reading-lost-${tag}.png`);
        await page.keyboard.press('Escape');
        await page.locator('.tv-header h2').waitFor();
        await page.keyboard.press('e');
        await page.locator('dialog.export-dialog').waitFor();
        await shot(page, `reading-export-${tag}.png`);
        await page.keyboard.press('Escape');
      }
    }
    await page.close();
  }, 420_000);
});
