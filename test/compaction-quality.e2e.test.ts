import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type {
  CompactionDiff,
  CompactionEvaluation,
  CompactionRunResult,
} from '../src/shared/api/compaction-api';
import { FACT_KINDS, FACT_KIND_LABELS } from '../src/shared/fact-kinds';
import { useChromium } from './support/use-chromium';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { realFixture } from './support/real-fixtures';
import { startServe, type ServeProcess } from './support/serve-process';
import { useTempDir } from './support/temp-dir';
import { callApi, openWithSession, pickOnlyStrategy } from './support/page-api';

/**
 * A compaction's quality in the browser, from core's figures: the diff page's lost facts
 * (ranked, by kind, kept/total per kind), where its token figures come from, "Compare
 * strategies" (evaluateCompaction drawn as a plot and a table), and the quality lines of a
 * preview — on a real Codex transcript, in light and dark, at two window sizes. Screenshots
 * go to test-results/ to be looked at.
 */

const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
let serve: ServeProcess | undefined;

afterAll(async () => {
  await serve?.stop();
});

const SIZES = [
  { name: '1400', width: 1400, height: 900 },
  { name: '900', width: 900, height: 700 },
] as const;
const THEMES = ['light', 'dark'] as const;

const TAGS: Record<string, string> = {
  instruction: 'instruction',
  path: 'path',
  command: 'command',
  error: 'error line',
  number: 'number',
  identifier: 'identifier',
  url: 'URL',
};
const n = (v: number): string => v.toLocaleString('en-US');

/** Sets the remembered theme and language, then reloads so the page reads them. */
async function setUi(page: Page, theme: string, language = 'en'): Promise<void> {
  await page.evaluate(
    (value) =>
      (
        globalThis as { localStorage?: { setItem(k: string, v: string): void } }
      ).localStorage?.setItem('cwb.ui', value),
    JSON.stringify({ theme, language }),
  );
  await page.reload();
}

async function shot(page: Page, name: string, at?: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  if (at)
    await page
      .locator(at)
      .first()
      .evaluate((el) => el.scrollIntoView({ block: 'start' }));
  // nothing hovered: a row under the pointer would light its point up
  await page.mouse.move(0, 0);
  await page.screenshot({ path: path.join(RESULTS, name) });
}

/** Opens "Compare strategies" and waits for its plot or its table. */
async function compare(page: Page): Promise<void> {
  await page.locator('.cmp-compare .cmp-panel-head button').click();
  await page.locator('.cmp-compare-table').waitFor({ timeout: 60_000 });
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('compaction quality in the web workbench', () => {
  it('shows lost facts, token figures and a strategy plot from the API, readable at two sizes in both themes', async () => {
    const root = path.join(tempDir(), 'contexts');
    const imported = runCwb([
      '--contexts',
      root,
      'import',
      realFixture(
        'codex',
        'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
      ),
    ]);
    expect(imported.status, imported.stderr).toBe(0);
    serve = await startServe(['--contexts', root]);
    const page = await browser().newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openWithSession(page, serve.url);
    const base = serve.url.replace(/\/\?token=.*$/, '/');
    const tasks = await callApi<{ rows: { uuid: string }[] }>(page, 'queryTasks', {});
    expect(tasks.rows).toHaveLength(1);
    const uuid = tasks.rows[0]!.uuid;

    // A compaction that loses facts of several kinds: truncate hides half the messages
    // behind a marker and keeps no ledger (the summaries do, and lose almost nothing).
    const run = await callApi<CompactionRunResult>(page, 'runCompaction', {
      uuid,
      strategies: ['truncate'],
    });
    if (run.mode !== 'ran') throw new Error('the idle task was not compacted here');
    const id = run.report.steps[0]!.recordId!;
    const diff = await callApi<CompactionDiff>(page, 'compactionDiff', { uuid, id });
    const { quality } = diff;
    const lost = quality.facts.lost ?? [];
    expect(lost.length).toBeGreaterThan(12);
    expect(new Set(lost.map((f) => f.kind)).size).toBeGreaterThan(3);

    await page.goto(`${base}#/task/${uuid}/compaction/${id}`);
    await setUi(page, 'light');
    await page.locator('.cmp-hero').waitFor({ timeout: 30_000 });

    // The headline figures and where they come from.
    expect(await page.locator('.cmp-hero-tokens strong').textContent()).toBe(
      `Whole context: ${n(diff.before.tokens)} → ${n(diff.after.tokens)} tokens`,
    );
    const explanation = (await page.locator('.cmp-breakdown-text').textContent())!;
    expect(explanation).toContain(
      `took out or shortened ${quality.spanMessages} messages (${n(quality.spanTokens)} tokens) and put ${n(quality.replacementTokens)} tokens in their place`,
    );
    expect(explanation).toContain(
      `The other ${n(diff.before.tokens - quality.spanTokens)} tokens of the context`,
    );
    expect(explanation).toContain(
      `went from ${n(diff.before.tokens)} to ${n(diff.after.tokens)} tokens.`,
    );
    expect(await page.locator('.cmp-bar').count()).toBe(2);

    // Lost facts: kept/total per kind, the salient score, the list ranked as the API ranks it.
    const panel = page.locator('.cmp-lost-panel');
    for (const kind of FACT_KINDS) {
      const score = quality.facts.byKind[kind];
      const chip = panel.locator(`.cmp-kind-chip.cmp-kind-${kind}`);
      if (score.total === 0) expect(await chip.count()).toBe(0);
      else
        expect(await chip.textContent()).toBe(
          `${FACT_KIND_LABELS[kind]} ${score.kept}/${score.total} kept`,
        );
    }
    expect(await panel.locator('.cmp-salient strong').textContent()).toContain(
      `${quality.facts.salient.kept}/${quality.facts.salient.total}`,
    );
    const items = panel.locator('.cmp-lost-item');
    expect(await items.count()).toBe(12);
    for (let i = 0; i < 12; i++) {
      expect(await items.nth(i).locator('.cmp-lost-text').textContent()).toBe(lost[i]!.text);
      expect(await items.nth(i).locator('.cmp-fact-tag').textContent()).toBe(TAGS[lost[i]!.kind]);
    }
    expect(await panel.locator('.cmp-lost-detail').first().textContent()).toBe(
      lost.find((f) => f.detail)!.detail,
    );
    // the lost facts are marked where the replaced messages said them
    expect(
      await page.locator('.cmp-split .cmp-column').first().locator('mark.cmp-lost').count(),
    ).toBeGreaterThan(0);
    await shot(page, 'compaction-quality-diff-1400-light.png');
    await shot(page, 'compaction-quality-lost-1400-light.png', '.cmp-lost-panel');

    // A kind filters the list; "show more" lists every lost fact the API sent.
    await panel.locator('.cmp-kind-chip.cmp-kind-command').click();
    const commands = lost.filter((f) => f.kind === 'command').length;
    expect(await items.count()).toBe(Math.min(12, commands));
    expect(
      await items.evaluateAll((els) =>
        els.every((el) => el.getAttribute('data-kind') === 'command'),
      ),
    ).toBe(true);
    await panel.getByRole('button', { name: 'All kinds' }).click();
    await panel.getByRole('button', { name: `Show ${lost.length - 12} more` }).click();
    expect(await items.count()).toBe(lost.length);
    if (quality.facts.lostCount > lost.length)
      expect(await panel.locator('.cmp-note').last().textContent()).toContain(
        `of ${quality.facts.lostCount} lost facts`,
      );

    // Compare strategies: nothing is asked until the reader opens it; on a diff page they are
    // scored on the context this compaction worked on, not on the one it produced.
    const evaluation = await callApi<CompactionEvaluation>(page, 'evaluateCompaction', {
      uuid,
      beforeRecord: id,
    });
    expect(evaluation.points.every((p) => p.tokensBefore === diff.before.tokens)).toBe(true);
    const plotted = evaluation.points.filter((p) => p.applied && p.quality);
    const configured = evaluation.points.find((p) => p.isDefault)!;
    expect(plotted.length).toBeGreaterThan(2);
    expect(await page.locator('.cmp-plot').count()).toBe(0);
    await compare(page);
    expect(await page.locator('.cmp-plot-point').count()).toBe(plotted.length);
    expect(await page.locator('.cmp-plot-point-default').count()).toBe(configured.applied ? 1 : 0);
    if (configured.applied)
      expect(await page.locator('.cmp-plot-point-default').getAttribute('data-label')).toBe(
        configured.label,
      );
    expect(await page.locator('.cmp-plot-goal').count()).toBeGreaterThan(0);
    const rows = page.locator('.cmp-compare-table tbody tr');
    expect(await rows.count()).toBe(evaluation.points.length);
    for (const p of evaluation.points) {
      const row = page.locator(`.cmp-compare-table tr[data-label="${p.label}"]`);
      if (p.applied && p.quality)
        expect(await row.textContent()).toContain(
          `${p.quality.facts.salient.kept}/${p.quality.facts.salient.total}`,
        );
      else expect(await row.textContent()).toContain('did not apply');
    }
    expect(await page.locator('.cmp-row-default code').textContent()).toBe(configured.label);

    /** Every point named once in the plot, and no two names drawn over each other. */
    const expectLegibleLabels = async (): Promise<void> => {
      const texts = page.locator('.cmp-plot .cmp-plot-label');
      expect((await texts.allTextContents()).sort()).toEqual(plotted.map((p) => p.label).sort());
      const boxes = await texts.evaluateAll((els) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        }),
      );
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++)
          expect(overlap(boxes[i]!, boxes[j]!), `labels ${i} and ${j} overlap`).toBe(false);
    };
    await expectLegibleLabels();
    await shot(page, 'compaction-quality-compare-1400-light.png', '.cmp-compare');

    // The other sizes and themes: the same page, looked at.
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      for (const theme of THEMES) {
        if (size.name === '1400' && theme === 'light') continue;
        await setUi(page, theme);
        await page.locator('.cmp-hero').waitFor({ timeout: 30_000 });
        await shot(page, `compaction-quality-diff-${size.name}-${theme}.png`);
        await shot(page, `compaction-quality-lost-${size.name}-${theme}.png`, '.cmp-lost-panel');
        await compare(page);
        await expectLegibleLabels();
        await shot(page, `compaction-quality-compare-${size.name}-${theme}.png`, '.cmp-compare');
        // nothing wider than the window
        expect(
          await page.evaluate(
            () =>
              (globalThis as { document?: { documentElement: { scrollWidth: number } } }).document!
                .documentElement.scrollWidth,
          ),
        ).toBeLessThanOrEqual(size.width);
      }
    }

    // Japanese.
    await page.setViewportSize({ width: 1400, height: 900 });
    await setUi(page, 'dark', 'ja');
    await page.locator('.cmp-hero').waitFor({ timeout: 30_000 });
    expect(await page.locator('.cmp-lost-panel h2').textContent()).toContain('失われた事実');
    expect(await page.locator('.cmp-breakdown-text').textContent()).toMatch(/^圧縮 #\d+ は/);
    await compare(page);
    expect(await page.locator('.cmp-plot-axis').first().textContent()).toBe(
      '範囲で削減したトークン（%）',
    );
    await shot(page, 'compaction-quality-diff-1400-dark-ja.png');
    await shot(page, 'compaction-quality-compare-1400-dark-ja.png', '.cmp-compare');

    // A preview's steps and run say what they save and keep, per kind on expand.
    await setUi(page, 'light');
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      for (const theme of THEMES) {
        await page.goto(`${base}#/task/${uuid}/compactions`);
        await setUi(page, theme);
        const controls = page.locator('.cmp-controls');
        await controls.waitFor({ timeout: 30_000 });
        await controls.getByRole('button', { name: 'Preview', exact: true }).click();
        await controls.locator('.cmp-report').waitFor({ timeout: 60_000 });
        const lines = controls.locator('.cmp-quality summary');
        expect(await lines.count()).toBeGreaterThan(1); // the run and each applied step
        expect(await lines.first().textContent()).toMatch(
          /^Whole run · saved [\d.]+ % of the span · kept \d+\/\d+ facts \([\d.]+ %\)$/,
        );
        await controls.locator('.cmp-report-steps .cmp-quality summary').first().click();
        expect(
          await controls.locator('.cmp-report-steps .cmp-quality .cmp-kind-chip').count(),
        ).toBeGreaterThan(0);
        await shot(page, `compaction-quality-preview-${size.name}-${theme}.png`, '.cmp-report');
      }
    }

    // A lossy preview (truncate alone) names the most important facts it would lose.
    for (const [size, theme] of [
      [SIZES[0], 'light'],
      [SIZES[1], 'dark'],
    ] as const) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${base}#/task/${uuid}/compactions`);
      await setUi(page, theme);
      const controls = page.locator('.cmp-controls');
      await controls.waitFor({ timeout: 30_000 });
      await pickOnlyStrategy(controls, 'truncate');
      await controls.getByRole('button', { name: 'Preview', exact: true }).click();
      await controls.locator('.cmp-report').waitFor({ timeout: 60_000 });
      const step = controls.locator('.cmp-report-steps .cmp-quality');
      expect(await step.locator('summary').textContent()).toMatch(
        /^saved [\d.]+ % of the span · kept \d+\/\d+ facts \([\d.]+ %\)$/,
      );
      await step.locator('summary').click();
      expect(await step.locator('.cmp-lost-mini li').count()).toBeGreaterThan(0);
      await shot(page, `compaction-quality-preview-lossy-${size.name}-${theme}.png`, '.cmp-report');
    }

    // A compaction that lost nothing says so in one plain line.
    await page.setViewportSize({ width: 1400, height: 900 });
    // (extractive: the imported task names a hosted model, and tests never leave the machine)
    const second = await callApi<CompactionRunResult>(page, 'runCompaction', {
      uuid,
      strategies: ['extractive'],
    });
    if (second.mode !== 'ran') throw new Error('the idle task was not compacted here');
    const id2 = second.report.steps.find((s) => s.applied)!.recordId!;
    const diff2 = await callApi<CompactionDiff>(page, 'compactionDiff', { uuid, id: id2 });
    await page.goto(`${base}#/task/${uuid}/compaction/${id2}`);
    await setUi(page, 'light');
    await page.locator('.cmp-hero').waitFor({ timeout: 30_000 });
    if (diff2.quality.facts.lostCount === 0) {
      expect(await page.locator('.cmp-lost-panel .cmp-all-kept').textContent()).toBe(
        `Nothing was lost: all ${Object.values(diff2.quality.facts.byKind).reduce((s, k) => s + k.total, 0)} facts of the replaced span are still in the context.`,
      );
    } else {
      expect(await page.locator('.cmp-lost-item').count()).toBeGreaterThan(0);
    }
    await shot(page, 'compaction-quality-diff-summary-1400-light.png');
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);
});
