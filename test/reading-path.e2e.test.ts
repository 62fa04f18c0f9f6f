import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { useChromium } from './support/use-chromium';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { startServe, type ServeProcess } from './support/serve-process';
import { useTempDir } from './support/temp-dir';
import { openWithSession } from './support/page-api';
import { writeSessionCorpus } from './support/session-corpus';
import { screenProblems, type ScreenProblems } from './support/screen-checks';

/**
 * Issue 16's goal, walked with the keyboard alone: in a folder of 100 imported sessions of
 * four agents, find the most expensive session of the last 7 days, read its third
 * compaction's lost facts, and export its current context. No click, no address typed
 * after the first. The walk's wall time is logged (speed is the bench's to judge, not a
 * test's). Every screen of the path is then kept at 1400×900 and 900×700, light and dark,
 * English and Japanese, in test-results/, and every screen is checked for text cut off,
 * controls over one another and words of the other language.
 */

const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
let serve: ServeProcess | undefined;

afterAll(async () => {
  await serve?.stop();
});

interface ListedTask {
  uuid: string;
  agent: string;
  created_at: string;
  cost: { usd: number | null };
}

/** Every screen looked at, with what was wrong on it. */
const seen: { screen: string; problems: ScreenProblems }[] = [];

/** Screenshot and checks: what a person would see of `screen`. */
async function look(page: Page, screen: string, language: 'en' | 'ja' = 'en'): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, `reading-${screen}.png`) });
  seen.push({ screen, problems: await screenProblems(page, language) });
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

const focused = (page: Page, what: string): Promise<string> =>
  page.evaluate(`String(document.activeElement?.${what} ?? '')`);

/** The focused control draws a ring a person can see (its own, or its field's). */
const focusRingShown = (page: Page): Promise<boolean> =>
  page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el) return false;
    const cs = getComputedStyle(el.closest('.day-field') ?? el);
    return (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2) ||
      cs.boxShadow.includes('inset');
  })()`);

/** The theme and language a page starts in (the app keeps them in localStorage). */
const uiScript = (ui: { theme: string; language: string }): string =>
  `localStorage.setItem('cwb.ui', ${JSON.stringify(JSON.stringify(ui))})`;

/** The first day of "the last 7 days" (today and the six before), as the browser counts them. */
function lastWeekStart(now = new Date()): number {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - 6).getTime();
}

const SIZES = [
  { width: 1400, height: 900 },
  { width: 900, height: 700 },
] as const;
const VARIANTS = [
  { theme: 'light', language: 'en' },
  { theme: 'dark', language: 'en' },
  { theme: 'light', language: 'ja' },
  { theme: 'dark', language: 'ja' },
] as const;

describe('the reading path, keyboard only', () => {
  it('finds the most expensive session of last week among 100 of four agents, reads its third compaction’s lost facts and exports its current context', async () => {
    const folder = path.join(tempDir(), 'sessions');
    const corpus = writeSessionCorpus(folder);
    const root = path.join(tempDir(), 'contexts');
    const imported = runCwb(['--contexts', root, 'import', folder]);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Imported 100 tasks from 100 files.');
    const tasks = (
      JSON.parse(
        runCwb(['--contexts', root, 'tasks', '--json', '--sort', 'cost', '--limit', '200']).stdout,
      ) as { tasks: ListedTask[] }
    ).tasks;
    const agents = new Map<string, number>();
    for (const t of tasks) agents.set(t.agent, (agents.get(t.agent) ?? 0) + 1);
    expect(Object.fromEntries(agents)).toEqual({
      'claude-code': 25,
      codex: 25,
      'gemini-cli': 25,
      openhands: 25,
    });
    // The answer, from the CLI: the most expensive task created in the last 7 days, which
    // is not the most expensive overall (without the date filter the walk would be wrong).
    const lastWeek = tasks.filter((t) => Date.parse(t.created_at) >= lastWeekStart());
    const top = lastWeek[0]!;
    expect(top.cost.usd).toBeGreaterThan(0);
    expect(tasks[0]!.uuid).not.toBe(top.uuid);
    expect(tasks[0]!.cost.usd!).toBeGreaterThan(top.cost.usd!);
    const target = corpus.find((s) => s.role === 'target')!;
    expect(Date.parse(top.created_at)).toBe(target.start.getTime());
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
    }
    expect(
      (
        JSON.parse(runCwb(['--contexts', root, 'show', top.uuid, '--json']).stdout) as {
          task: { compression_count: number };
        }
      ).task.compression_count,
    ).toBe(3);

    serve = await startServe(['--contexts', root]);
    const page = await browser().newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(uiScript({ theme: 'light', language: 'en' }));

    // ---- The walk. `checking` is the time spent in screenshots and checks, not the app's.
    let checking = 0;
    const step = async (screen: string): Promise<void> => {
      const at = performance.now();
      await look(page, `walk-${String(seen.length + 1).padStart(2, '0')}-${screen}`);
      checking += performance.now() - at;
    };
    const started = performance.now();
    await openWithSession(page, serve.url);
    await page.locator('.task-row[data-uuid]').first().waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('task-count').textContent()).toBe('100 tasks');
    await expect.poll(() => focused(page, 'className')).toContain('task-grid');
    await step('list');

    // d: the Created filter's quick ranges; → to "Last 7 days"; Enter chooses it.
    await page.keyboard.press('d');
    await expect.poll(() => focused(page, 'dataset.range')).toBe('today');
    expect(await focusRingShown(page)).toBe(true);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => focused(page, 'dataset.range')).toBe('last7');
    await step('date-choice');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByTestId('task-count').textContent())
      .toBe(`${lastWeek.length} tasks`);
    expect(await page.locator('[data-range="last7"]').getAttribute('aria-pressed')).toBe('true');
    // $: most expensive first; ↓ on to the list, its cursor on the first row.
    await page.keyboard.press('$');
    await expect
      .poll(() => page.locator('.task-row[data-index="0"]').getAttribute('data-uuid'))
      .toBe(top.uuid);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => focused(page, 'className')).toContain('task-grid');
    expect(await page.locator('.task-row.active').getAttribute('data-uuid')).toBe(top.uuid);
    expect(await page.getByTestId('cost-total').textContent()).toMatch(/^Cost \$\d+\.\d\d/);
    await step('last-week-by-cost');

    // Enter opens it; ] to the Compactions tab; Tab to the third compaction's diff, Enter.
    await page.keyboard.press('Enter');
    await page.locator('.tv-header h2').waitFor();
    expect(page.url()).toContain(top.uuid);
    await step('task');
    await page.keyboard.press(']');
    await page.locator('tr[data-record="3"]').waitFor({ timeout: 30_000 });
    await step('compactions');
    await tabTo(page, `el.tagName === 'BUTTON' && el.closest('tr')?.dataset.record === '3'`);
    await step('compaction-3-focused');
    await page.keyboard.press('Enter');
    const lost = page.locator('.cmp-lost-panel');
    await lost.waitFor({ timeout: 60_000 });
    expect(page.url()).toMatch(/compaction\/3$/);
    await expect.poll(() => lost.locator('.cmp-lost-text').count()).toBeGreaterThan(0);
    // Read without scrolling by mouse: the lost facts are on the screen.
    const panel = (await lost.boundingBox())!;
    expect(panel.y).toBeGreaterThanOrEqual(0);
    expect(panel.y).toBeLessThan(900);
    const lostFacts = await lost.locator('.cmp-lost-text').allTextContents();
    await step('lost-facts');

    // Esc back to the task, e to export, the current context, its size, Enter.
    await page.keyboard.press('Escape');
    await page.locator('.tv-header h2').waitFor();
    await page.keyboard.press('e');
    const dialog = page.locator('dialog.export-dialog');
    await dialog.waitFor();
    const size = dialog.getByTestId('export-size');
    await expect.poll(() => size.textContent()).toMatch(/^Size: about \d/);
    const historySize = await size.textContent();
    await tabTo(page, `el.tagName === 'INPUT' && el.name === 'what'`);
    await page.keyboard.press('ArrowDown');
    expect(await dialog.locator('input[value="current"]').isChecked()).toBe(true);
    expect(await dialog.locator('select[name="format"]').inputValue()).toBe('markdown');
    await expect.poll(() => size.textContent()).not.toBe(historySize);
    await expect.poll(() => size.textContent()).toMatch(/^Size: about \d/);
    const estimate = await size.textContent();
    await step('export-current');
    const download = page.waitForEvent('download');
    await tabTo(page, `el.tagName === 'BUTTON' && el.type === 'submit'`);
    await page.keyboard.press('Enter');
    const file = await download;
    // The file's line, then the line saying it was not redacted (Markdown is not by default).
    await dialog.locator('.log-ok').first().waitFor();
    expect(await dialog.locator('.transfer-log').textContent()).toContain('Not redacted');
    const walked = performance.now() - started;
    console.log(
      `reading path walked in ${(walked / 1000).toFixed(1)} s with the keyboard alone ` +
        `(${((walked - checking) / 1000).toFixed(1)} s of it the app's, ` +
        `${(checking / 1000).toFixed(1)} s screenshots and checks); ` +
        `lost facts read: ${lostFacts.length}; export estimated as "${estimate}"`,
    );
    expect(file.suggestedFilename()).toBe(`${top.uuid.slice(0, 8)}-context.md`);
    const saved = path.join(tempDir(), file.suggestedFilename());
    await file.saveAs(saved);
    const bytes = fs.statSync(saved).size;
    const shown = /about ([\d.]+) (k?B)/.exec(estimate ?? '');
    expect(shown, String(estimate)).not.toBeNull();
    const estimated = Number(shown![1]) * (shown![2] === 'kB' ? 1000 : 1);
    expect(Math.abs(estimated - bytes) / bytes).toBeLessThan(0.15);
    expect(fs.readFileSync(saved, 'utf8')).toContain('current context');
    await step('export-done');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // ? lists the keys, the date filter's among them.
    await page.keyboard.press('?');
    const keys = page.locator('dialog.keys-overlay');
    await keys.waitFor();
    expect(await keys.textContent()).toContain('Filter by the day created');
    await look(page, 'keys-1400-light');
    await page.keyboard.press('Escape');
    await keys.waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await page.locator('.task-row.active').waitFor();
    expect(await page.locator('.task-row.active').getAttribute('data-uuid')).toBe(top.uuid);

    // Days typed: Tab from the quick ranges to "from", a day in the Japanese form (the
    // decoy's, 12 days ago), Enter; ↑ six times: the last 7 days again.
    await page.keyboard.press('d');
    await tabTo(page, `el.dataset.day === 'from'`);
    expect(await focusRingShown(page)).toBe(true);
    const from = page.locator('.day-input[data-day="from"]');
    const decoyDay = new Date(lastWeekStart() - 6 * 86_400_000 + 12 * 3_600_000);
    await page.keyboard.type(
      `${decoyDay.getFullYear()}/${decoyDay.getMonth() + 1}/${decoyDay.getDate()}`,
    );
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('.task-row[data-index="0"]').getAttribute('data-uuid'))
      .toBe(tasks[0]!.uuid);
    expect(await page.locator('[data-range="last7"]').getAttribute('aria-pressed')).toBe('false');
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowUp');
    await expect
      .poll(() => page.locator('[data-range="last7"]').getAttribute('aria-pressed'))
      .toBe('true');
    await expect
      .poll(() => page.getByTestId('task-count').textContent())
      .toBe(`${lastWeek.length} tasks`);
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await expect.poll(() => from.inputValue()).toBe('');
    // "to" is still today, and every session started before now.
    await expect.poll(() => page.getByTestId('task-count').textContent()).toBe('100 tasks');

    // An unknown task: "not found" at once, its way back focused.
    await page.goto(
      `${serve.url.split('?')[0]}#/task/00000000-0000-4000-8000-000000000000/timeline`,
    );
    await page.getByTestId('not-found-back').waitFor();
    expect(await page.locator('.tv-header-loading').count()).toBe(0);
    await expect.poll(() => focused(page, 'textContent')).toBe('Back to the task list');
    await look(page, 'not-found-1400-light');
    await page.close();

    // ---- Every screen of the path, at two sizes, light and dark, English and Japanese.
    const base = serve.url.split('?')[0]!;
    for (const size of SIZES) {
      for (const ui of VARIANTS) {
        const shots = await browser().newPage({ viewport: size, acceptDownloads: false });
        await shots.addInitScript(uiScript(ui));
        await openWithSession(shots, serve.url);
        const tag = `${size.width}-${ui.theme}${ui.language === 'ja' ? '-ja' : ''}`;
        const count =
          ui.language === 'ja' ? `${lastWeek.length} 件のタスク` : `${lastWeek.length} tasks`;
        await shots.locator('.task-row[data-uuid]').first().waitFor();
        await shots.keyboard.press('d');
        await shots.keyboard.press('ArrowRight');
        await shots.keyboard.press('Enter');
        await expect.poll(() => shots.getByTestId('task-count').textContent()).toBe(count);
        await shots.keyboard.press('$');
        await expect
          .poll(() => shots.locator('.task-row[data-index="0"]').getAttribute('data-uuid'))
          .toBe(top.uuid);
        await shots.keyboard.press('ArrowDown');
        await look(shots, `list-${tag}`, ui.language);
        await shots.keyboard.press('Enter');
        await shots.locator('.tv-slot .tv-row').first().waitFor();
        // The chart drawn, or its strip (collapsed at 900 px).
        await shots
          .locator('.tv-chart-canvas .uplot, .tv-chart-strip .tv-strip-bar')
          .first()
          .waitFor({ timeout: 30_000 });
        await look(shots, `task-${tag}`, ui.language);
        await shots.keyboard.press(']');
        await shots.locator('tr[data-record="3"]').waitFor();
        await look(shots, `compactions-${tag}`, ui.language);
        await shots.goto(`${base}#/task/${top.uuid}/compaction/3`);
        await shots.locator('.cmp-lost-panel .cmp-lost-text').first().waitFor({ timeout: 60_000 });
        await look(shots, `lost-${tag}`, ui.language);
        await shots.keyboard.press('Escape');
        await shots.locator('.tv-header h2').waitFor();
        await shots.keyboard.press('e');
        await shots.locator('dialog.export-dialog input[value="current"]').check();
        await expect
          .poll(() => shots.getByTestId('export-size').textContent())
          .toMatch(ui.language === 'ja' ? /^サイズ: 約 \d/ : /^Size: about \d/);
        await look(shots, `export-${tag}`, ui.language);
        await shots.keyboard.press('Escape');
        await shots.keyboard.press('?');
        await shots.locator('dialog.keys-overlay').waitFor();
        await look(shots, `keys-${tag}`, ui.language);
        await shots.keyboard.press('Escape');
        await shots.goto(`${base}#/task/00000000-0000-4000-8000-000000000000/timeline`);
        await shots.getByTestId('not-found-back').waitFor();
        await look(shots, `not-found-${tag}`, ui.language);
        await shots.close();
      }
    }

    // Nothing cut off, over another control or in the other language, on any screen.
    fs.writeFileSync(path.join(RESULTS, 'reading-screens.json'), JSON.stringify(seen, null, 2));
    const wrong = seen.filter(
      (s) =>
        s.problems.clipped.length +
          s.problems.overlapping.length +
          s.problems.wrongLanguage.length >
        0,
    );
    expect(wrong, JSON.stringify(wrong, null, 2)).toEqual([]);
    expect(seen.length).toBeGreaterThan(60);
  }, 600_000);
});
