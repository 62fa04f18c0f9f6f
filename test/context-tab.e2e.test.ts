/**
 * "What fills the context" in the task view, through a real `cwb serve` in Chromium, on a
 * real Claude Code session: the parts and their total, the biggest messages of a part, a
 * jump into the timeline, a past point, both languages and themes at 900×700.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
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

describe('the context tab', () => {
  it('splits a real session into parts, lists the biggest messages, and opens one in the timeline', async () => {
    const root = path.join(tempDir(), 'contexts');
    const file = realFixture('claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');
    const imported = runCwb(['--contexts', root, 'import', file, '--json']);
    expect(imported.status, imported.stderr).toBe(0);
    const uuid = (
      JSON.parse(imported.stdout) as { imported: { uuid: string; parent_uuid: string | null }[] }
    ).imported.find((t) => t.parent_uuid === null)!.uuid;
    const cli = JSON.parse(runCwb(['--contexts', root, 'context', uuid, '--json']).stdout) as {
      total_tokens: number;
      parts: { kind: string; tokens: number }[];
    };
    expect(cli.parts.reduce((s, p) => s + p.tokens, 0)).toBe(cli.total_tokens);

    const s = await startServe(['--contexts', root]);
    serves.push(s);
    const page = await browser().newPage({ viewport: { width: 900, height: 700 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(s.url.replace('/?', `/?`) + `#/task/${uuid}/context`);
    const total = page.getByTestId('context-total');
    await total.waitFor({ timeout: 30_000 });
    expect(await total.textContent()).toBe(
      `${cli.total_tokens.toLocaleString('en-US')} tokens now`,
    );
    const parts = page.locator('.ctx-part');
    expect(await parts.count()).toBe(cli.parts.length);
    expect(await parts.first().textContent()).toContain('Not in the transcript');
    await noProblems(page, 'en');
    await shot(page, 'context-tab.png');

    // The keyboard reaches a part; Enter lists its biggest messages.
    const output = page.locator('.ctx-part[data-part="tool-output:Task"] .ctx-part-head');
    await output.focus();
    await page.keyboard.press('Enter');
    const biggest = page.locator('.ctx-part[data-part="tool-output:Task"] .ctx-biggest li');
    expect(await biggest.count()).toBe(5);
    await shot(page, 'context-tab-open.png');
    const first = biggest.first().locator('button.tv-seq');
    const seq = Number((await first.textContent())!.slice(1));
    await first.click();
    await page.waitForURL(new RegExp(`/timeline\\?.*seq=${seq}`));
    await page.locator(`.tv-target`).waitFor();

    // A past point: the context right after message 5.
    await page.goto(s.url + `#/task/${uuid}/context?seq=5`);
    await page.getByText('tokens after message #5').waitFor();
    expect(await page.locator('.ctx-part').count()).toBeLessThan(cli.parts.length);

    // Japanese, dark.
    await page.goto(s.url + `#/task/${uuid}/context`);
    await page.locator('[data-name="language"] button[data-value="ja"]').click();
    await page.locator('[data-name="theme"] button[data-value="dark"]').click();
    await page.getByText('記録にない部分').waitFor();
    await noProblems(page, 'ja');
    await shot(page, 'context-tab-ja-dark.png');
    expect(errors).toEqual([]);
  }, 120_000);
});
