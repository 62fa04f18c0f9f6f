import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useChromium } from './support/use-chromium';
import { REPO_ROOT } from './support/run-ts';
import { realFixture } from './support/real-fixtures';
import { startServe, type ServeProcess } from './support/serve-process';
import { useTempDir } from './support/temp-dir';

/** Settings › Sources through a real `cwb serve` in Chromium; screenshot in test-results/. */

const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
const serves: ServeProcess[] = [];
afterEach(async () => {
  for (const s of serves.splice(0)) await s.stop();
});

describe('Settings › Sources', () => {
  it('shows each source with its folders, sessions, last sync and errors, and syncs on demand', async () => {
    const home = tempDir();
    const claude = path.join(home, '.claude', 'projects', '-work-demo');
    fs.mkdirSync(claude, { recursive: true });
    fs.copyFileSync(
      realFixture('claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
      path.join(claude, 'a.jsonl'),
    );
    const codex = path.join(home, 'codex-sessions');
    fs.mkdirSync(codex);
    fs.writeFileSync(
      path.join(home, 'config.yaml'),
      `sources:\n  watch: false\n  codex:\n    folders: [${codex}]\n`,
    );
    const s = await startServe(
      ['--contexts', path.join(home, 'contexts'), '--config', path.join(home, 'config.yaml')],
      {
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        CWB_SOURCES_WATCH: '1',
      },
    );
    serves.push(s);
    const page = await browser().newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(s.url);
    await page.getByRole('link', { name: 'Settings' }).click();
    const section = page.getByTestId('sources-section');
    await section.waitFor({ timeout: 15_000 });
    const claudeRow = section.locator('tr[data-source="claude-code"]');
    const codexRow = section.locator('tr[data-source="codex"]');
    await claudeRow.waitFor();
    // Not watched (sources.watch: false): nothing synced until asked.
    await expect.poll(() => section.textContent()).toContain('Not watched live');
    expect(await claudeRow.locator('td').nth(1).textContent()).toBe('0');
    expect(await claudeRow.locator('td').nth(2).textContent()).toBe('never');
    expect(await codexRow.textContent()).toContain(codex);
    expect(await claudeRow.textContent()).toContain('default folders');

    fs.copyFileSync(
      realFixture(
        'codex',
        'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
      ),
      path.join(codex, 'rollout-1.jsonl'),
    );
    await section.getByRole('button', { name: 'Sync now' }).click();
    await expect
      .poll(() => section.getByRole('status').textContent(), { timeout: 30_000 })
      .toMatch(/Synced: \d+ new messages/);
    await expect.poll(() => claudeRow.locator('td').nth(1).textContent()).toBe('1');
    await expect.poll(() => codexRow.locator('td').nth(1).textContent()).toBe('1');
    expect(await claudeRow.locator('td').nth(2).textContent()).not.toBe('never');

    // A session file cut short is read again from its start: a notice, not an error.
    const rollout = path.join(codex, 'rollout-1.jsonl');
    const head = fs.readFileSync(rollout, 'utf8').split('\n').slice(0, 3).join('\n');
    fs.writeFileSync(rollout, `${head}\n`);
    await section.getByRole('button', { name: 'Sync now' }).click();
    await expect
      .poll(() => codexRow.locator('td').nth(3).textContent(), { timeout: 30_000 })
      .toContain('rollout-1.jsonl: ');
    expect(await codexRow.locator('td').nth(3).textContent()).toMatch(
      /the file was replaced or truncated/,
    );
    expect(await codexRow.locator('td .field-error').count()).toBe(0);
    fs.mkdirSync(RESULTS, { recursive: true });
    await codexRow.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS, 'settings-sources.png') });
    expect(errors).toEqual([]);
  }, 120_000);
});
