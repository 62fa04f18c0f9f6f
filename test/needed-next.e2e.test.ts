import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type {
  CompactionList,
  CompactionReport,
  CompactionRunResult,
} from '../src/shared/api/compaction-api';
import type { NeededNextInfo } from '../src/shared/needed-next-info';
import { useChromium } from './support/use-chromium';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { realFixture } from './support/real-fixtures';
import { startServe, type ServeProcess } from './support/serve-process';
import { useTempDir } from './support/temp-dir';
import { callApi, openWithSession } from './support/page-api';

/**
 * "Needed next" (FRR) where a compaction's quality is shown, in the browser through `cwb
 * serve`: a real compaction Claude Code made itself, its one-line comparison with the
 * workbench's pipeline and the plot, the re-reads; the API's figures behind them; a preview at
 * a past point; English and Japanese, light and dark. Screenshots go to test-results/.
 */

const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
let serve: ServeProcess | undefined;

afterAll(async () => {
  await serve?.stop();
});

const n = (v: number): string => v.toLocaleString('en-US');

async function setUi(page: Page, theme: string, language: string): Promise<void> {
  await page.evaluate(
    (value) =>
      (
        globalThis as { localStorage?: { setItem(k: string, v: string): void } }
      ).localStorage?.setItem('cwb.ui', value),
    JSON.stringify({ theme, language }),
  );
  await page.reload();
}

/** Waits for the panel's figures (the pipeline's offline run takes a moment under load). */
async function neededReady(page: Page): Promise<void> {
  await page.locator('.cmp-needed[data-state="ready"]').waitFor({ timeout: 120_000 });
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.locator('.cmp-needed').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.mouse.move(0, 0);
  await page.screenshot({ path: path.join(RESULTS, name) });
}

describe('needed next (FRR) in the web workbench', () => {
  it("sets Claude Code's own compaction beside the workbench's pipeline, in a line and a plot, in both languages", async () => {
    const root = path.join(tempDir(), 'contexts');
    const imported = runCwb([
      '--contexts',
      root,
      'import',
      realFixture('claude-code-compacted', 'entire-53ea1606-compacted.jsonl'),
    ]);
    expect(imported.status, imported.stderr).toBe(0);
    serve = await startServe(['--contexts', root]);
    const page = await browser().newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openWithSession(page, serve.url);
    const base = serve.url.replace(/\/\?token=.*$/, '/');
    const tasks = await callApi<{ rows: { uuid: string; parent_uuid: string | null }[] }>(
      page,
      'queryTasks',
      {},
    );
    const uuid = tasks.rows.find((r) => r.parent_uuid === null)!.uuid;
    const list = await callApi<CompactionList>(page, 'listCompactions', { uuid });
    const record = list.records.find((r) => r.agent_compaction)!;
    expect(record).toBeDefined();

    // The API: Claude Code's summary and the pipeline on the same prefix, on the same facts.
    const info = await callApi<NeededNextInfo>(page, 'compactionNeededNext', {
      uuid,
      id: record.id,
    });
    expect(info.agent).toBe('claude-code');
    expect(info.needed).toBeGreaterThan(50);
    expect(info.frr).toBeCloseTo(info.kept / info.needed, 9);
    expect(info.pipeline).toMatchObject({ label: 'tool-output-trim+summarize', applied: true });
    const ours = info.pipeline!;
    expect(ours.frr!).toBeGreaterThanOrEqual(0.95);
    expect(ours.kept).toBeGreaterThan(info.kept);
    expect(info.lost).toHaveLength(Math.min(30, info.needed - info.kept));
    expect(info.reReads.count).toBeGreaterThan(0);
    expect(info.reReads.tokens).toBeGreaterThan(0);

    await page.goto(`${base}#/task/${uuid}/compaction/${record.id}`);
    await setUi(page, 'light', 'en');
    await neededReady(page);
    const panel = page.locator('.cmp-needed');
    const same = ours.tokensAfter <= info.tokensAfter * 1.1;
    expect(await panel.getByTestId('needed-line').textContent()).toBe(
      same
        ? `Claude Code kept ${info.kept} of ${info.needed} facts the agent needed next; the workbench’s pipeline keeps ${ours.kept} in the same space.`
        : `Claude Code kept ${info.kept} of ${info.needed} facts the agent needed next (in ${n(info.tokensAfter)} tokens); the workbench’s pipeline keeps ${ours.kept} (in ${n(ours.tokensAfter)} tokens).`,
    );
    expect(await panel.getByTestId('re-reads').textContent()).toMatch(
      new RegExp(
        `^Re-read after it: ${info.reReads.count} files or commands whose output the compacted messages held \\(${n(info.reReads.tokens)} tokens`,
      ),
    );
    // The plot: Claude Code's summary and the pipeline, the pipeline inside the goal corner.
    expect(await panel.locator('.cmp-plot-point').count()).toBe(2);
    expect(await panel.locator('.cmp-plot-label').allTextContents()).toEqual(
      expect.arrayContaining(['Claude Code’s summary', 'workbench pipeline']),
    );
    await panel.locator('summary', { hasText: 'Needed next, not kept' }).click();
    expect(await panel.locator('.cmp-needed-lost li code').first().textContent()).toBe(
      info.lost[0]!.text,
    );
    await shot(page, 'needed-next-agent-1400-light-en.png');

    await setUi(page, 'dark', 'ja');
    await neededReady(page);
    const line = (await panel.getByTestId('needed-line').textContent())!;
    expect(line).toContain(
      `Claude Code はエージェントが次に必要とした ${info.needed} 件の事実のうち ${info.kept} 件`,
    );
    expect(line).toContain('ワークベンチのパイプライン');
    expect(await panel.locator('h2').textContent()).toBe('次に必要だった事実');
    await shot(page, 'needed-next-agent-1400-dark-ja.png');
    await page.setViewportSize({ width: 900, height: 700 });
    await shot(page, 'needed-next-agent-900-dark-ja.png');

    // A preview at a past point: the pipeline on the context then, scored by what followed.
    const at = Math.max(2, Math.floor(record.end_seq / 2));
    const preview = await callApi<CompactionReport>(page, 'previewCompaction', {
      uuid,
      atSeq: at,
    });
    expect(preview.dryRun).toBe(true);
    expect(preview.atSeq).toBe(at);
    const past = preview.neededNext!;
    expect(past.needed).toBeGreaterThan(0);
    expect(past.frr).toBeCloseTo(past.kept / past.needed, 9);
    expect(past.tokensBefore).toBe(preview.tokensBefore);
    expect(past.tokensAfter).toBe(preview.tokensAfter);

    // One of ours, made now: nothing followed it, so there is no FRR, and the page says so.
    const run = await callApi<CompactionRunResult>(page, 'runCompaction', {
      uuid,
      strategies: ['truncate'],
    });
    if (run.mode !== 'ran') throw new Error('the idle task was not compacted here');
    const own = run.report.steps[0]!.recordId!;
    const ownInfo = await callApi<NeededNextInfo>(page, 'compactionNeededNext', { uuid, id: own });
    expect(ownInfo).toMatchObject({ needed: 0, frr: null });
    expect(ownInfo.pipeline).toBeUndefined();
    await setUi(page, 'light', 'en');
    await page.goto(`${base}#/task/${uuid}/compaction/${own}`);
    await neededReady(page);
    expect(await panel.getByTestId('needed-line').textContent()).toBe(
      'The agent typed nothing after this point that the compacted messages held: no FRR.',
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);
});
