import fs from 'node:fs';
import path from 'node:path';
import type {} from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { useChromium } from './support/use-chromium';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { REAL_FIXTURES } from './support/real-fixtures';
import { startServe, type ServeProcess } from './support/serve-process';
import { useTempDir } from './support/temp-dir';

/**
 * The web workbench end to end: a real `cwb serve` process (from source), the built UI,
 * Debian's Chromium. Screenshots go to test-results/ to be looked at.
 */

const FIXTURES = REAL_FIXTURES;
const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
const serves: ServeProcess[] = [];

afterEach(async () => {
  for (const s of serves.splice(0)) await s.stop();
});

function importFixture(root: string, relative: string): void {
  const result = runCwb(['--contexts', root, 'import', path.join(FIXTURES, relative)]);
  if (result.status !== 0) throw new Error(`cwb import ${relative} failed: ${result.stderr}`);
}

async function serve(root: string): Promise<ServeProcess> {
  const s = await startServe(['--contexts', root]);
  serves.push(s);
  return s;
}

describe('the web workbench in Chromium', () => {
  it('loads the UI from cwb serve, shows imported tasks, and keeps the list live', async () => {
    const root = path.join(tempDir(), 'contexts');
    importFixture(root, 'swe-agent/pydicom__pydicom-1458.traj');
    importFixture(
      root,
      'codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
    );
    const s = await serve(root);
    const page = await browser().newPage({ viewport: { width: 1280, height: 720 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

    await page.goto(s.url);
    const rows = page.locator('.task-row[data-uuid]');
    await rows.first().waitFor({ timeout: 30_000 });
    expect(await rows.count()).toBe(2);
    await expect.poll(() => page.locator('.host-badge').textContent()).toBe('Web');
    expect(await page.locator('.app-facts dd').first().textContent()).toBe(root);
    // the token left the address bar; the session goes on with the cookie and sessionStorage
    expect(new URL(page.url()).search).toBe('');
    const titles = await page.locator('.task-row[data-uuid] .title').allTextContents();
    expect(titles.join('\n')).toMatch(/pydicom|codex|rollout|\w+/);
    const statuses = await page.locator('.task-row .status').allTextContents();
    expect(statuses.every((t) => ['Completed', 'Failed', 'Paused'].includes(t))).toBe(true);

    // A task arriving while the page is open: the host's SSE event makes the list re-read.
    const imported = await page.evaluate(
      async (file) => {
        // runs in the page: the token the UI kept for its session
        const store = (globalThis as { sessionStorage?: { getItem(key: string): string | null } })
          .sessionStorage;
        const token = store?.getItem('cwb.token');
        const res = await fetch('/api/importFiles', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify({ paths: [file] }),
        });
        return (await res.json()) as { ok: boolean };
      },
      path.join(FIXTURES, 'claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
    );
    expect(imported.ok).toBe(true);
    // a Claude Code session: the main thread and its subagents, each a task
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBeGreaterThan(2);
    const live = await rows.count();
    expect(await page.locator('.task-row[data-uuid] .title').allTextContents()).toContainEqual(
      expect.stringMatching(/^Subagent: /),
    );

    await page.reload();
    await rows.first().waitFor({ timeout: 30_000 });
    expect(await rows.count()).toBe(live);

    fs.mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, 'serve-task-list.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the empty state for an empty contexts folder, and refuses a page without the token', async () => {
    const s = await serve(path.join(tempDir(), 'contexts'));
    const stranger = await browser().newPage();
    const refused = await stranger.goto(s.url.replace(/\?token=.*$/, ''));
    expect(refused?.status()).toBe(401);
    expect(await stranger.locator('h1').textContent()).toBe('Access refused');
    await stranger.close();

    const page = await browser().newPage({ viewport: { width: 1100, height: 560 } });
    await page.goto(s.url);
    await page.getByText('No tasks yet').waitFor({ timeout: 30_000 });
    fs.mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, 'serve-empty.png') });
    await page.close();
  });
});
