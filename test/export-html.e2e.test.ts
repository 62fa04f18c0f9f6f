/**
 * A real Claude Code session with an Anthropic key pasted into it, imported, compacted and
 * exported as one HTML page by `cwb` (real processes), then opened from disk in Chromium
 * with the network off: the page must hold no trace of the key and ask for nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { useTempDir } from './support/temp-dir';
import { realFixture } from './support/real-fixtures';
import { useChromium } from './support/use-chromium';

const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();

// Shaped like a real key; built at run time so no scanner takes this file for a leak.
const KEY = [
  'sk',
  'ant',
  'api03',
  'Rq8vN2xK7pL0mW4tY9zB3cD6fH1jS5gA-uE8iO2qT7yU4rW9eQ1wZ_xCAA',
].join('-');

/** The fixture with the key pasted into the user's request, as people do. */
function sessionWithKey(dir: string): string {
  const source = realFixture('claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');
  const lines = fs.readFileSync(source, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.includes('"type":"user"') && l.includes('"text"'));
  const entry = JSON.parse(lines[at]!) as {
    message: { content: { type: string; text: string }[] };
  };
  entry.message.content[0]!.text += `\n\nUse ANTHROPIC_API_KEY=${KEY} for the deploy.`;
  lines[at] = JSON.stringify(entry);
  const file = path.join(dir, 'session.jsonl');
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

function cwb(args: string[]): { stdout: string; stderr: string } {
  const run = runCwb(args);
  if (run.status !== 0) throw new Error(`cwb ${args.join(' ')}: ${run.stderr}`);
  return { stdout: run.stdout, stderr: run.stderr };
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, name) });
}

describe('cwb export --format html', () => {
  it('writes a page of a real session with no trace of a pasted key, which loads nothing', async () => {
    const dir = tempDir();
    const root = path.join(dir, 'contexts');
    const imported = JSON.parse(
      cwb(['--contexts', root, 'import', sessionWithKey(dir), '--json']).stdout,
    ) as { imported: { uuid: string; parent_uuid: string | null; messages: number }[] };
    const task = imported.imported.find((t) => t.parent_uuid === null)!;
    const main = task.uuid;
    cwb(['--contexts', root, 'compact', main, '--offline', '--strategy', 'summarize']);
    const page = path.join(dir, 'session.html');
    const exported = cwb(['--contexts', root, 'export', main, '--format', 'html', '-o', page]);
    // The key, and the pieces of it the compaction's fact ledger listed as identifiers.
    expect(exported.stderr).toMatch(/cwb: redacted: 1 Anthropic API key \(in \d+ places\)\n/);

    const html = fs.readFileSync(page, 'utf8');
    // No trace: not the key, not a piece of it, not escaped or encoded.
    for (const trace of [KEY, KEY.slice(14, 40), encodeURIComponent(KEY), btoa(KEY)])
      expect(html).not.toContain(trace);
    expect(html).toContain('ANTHROPIC_API_KEY=[REDACTED:anthropic-key]');
    expect(html).toMatch(/<section class="compaction" id="compaction-1">/);

    const context = await browser().newContext({ viewport: { width: 900, height: 700 } });
    await context.setOffline(true);
    const requests: string[] = [];
    context.on('request', (r) => requests.push(r.url()));
    try {
      const tab = await context.newPage();
      const url = `file://${page}`;
      await tab.goto(url);
      await expect(tab.locator('.note')).toBeDefined();
      expect(await tab.locator('aside.note').innerText()).toContain(
        'Removed before export: 1 Anthropic API key (in',
      );
      // Every message of the history, and the compaction's summary message it added.
      expect(await tab.locator('article').count()).toBe(task.messages + 1);
      await shot(tab, 'export-html-900.png');
      // A phone, dark: still one readable column.
      await tab.setViewportSize({ width: 390, height: 844 });
      await tab.emulateMedia({ colorScheme: 'dark' });
      const wide = await tab.locator('html').evaluate((el) => el.scrollWidth);
      expect(wide).toBeLessThanOrEqual(390);
      await tab.locator('#compaction-1').scrollIntoViewIfNeeded();
      await shot(tab, 'export-html-phone-dark.png');
      // Folded tool calls open on a click, and what they hold is there.
      const call = tab.locator('details.call').first();
      await call.locator('summary').click();
      expect(await call.locator('pre').isVisible()).toBe(true);
      expect(requests).toEqual([url]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
