import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { startPostgres, type PostgresCluster } from './support/postgres';
import { REAL_FIXTURES } from './support/real-fixtures';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { startServe, type ServeProcess } from './support/serve-process';
import { useChromium } from './support/use-chromium';
import { useTempDir } from './support/temp-dir';

/**
 * The task table's Host column and filter through a real `cwb serve` in Chromium: a
 * fleet's PostgreSQL index holding two hosts' tasks, and one host's tasks.db.
 */
const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
const serves: ServeProcess[] = [];
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());
afterEach(async () => {
  for (const s of serves.splice(0)) await s.stop();
});

async function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const s = await startServe(args, env);
  serves.push(s);
  return s;
}

async function open(url: string): Promise<Page> {
  const page = await browser().newPage({ viewport: { width: 1440, height: 700 } });
  await page.goto(url);
  await rows(page).first().waitFor({ timeout: 30_000 });
  // The pickers are filled once the facets have come.
  await page.locator('.status-chips[aria-busy="false"]').waitFor();
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, name) });
}

const rows = (page: Page) => page.locator('.task-row[data-uuid]');
const hostCells = (page: Page) => page.locator('.task-row[data-uuid] .cell-host').allTextContents();
const hostHeader = (page: Page) => page.locator('.sort-button[data-column="host"]');
const hostOptions = (page: Page) => page.locator('select[name="host"] option').allTextContents();

describe('the host column and filter', () => {
  it("shows each task's host in a fleet, sorts by it, and lists one host's tasks", async () => {
    const index = await cluster.createDatabase();
    const imports: Record<string, string[]> = {
      alpha: ['swe-agent/pydicom__pydicom-1458.traj', 'swe-agent/function_calling_simple.traj'],
      beta: ['codex/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl'],
    };
    const roots: Record<string, string> = {};
    for (const [host, files] of Object.entries(imports)) {
      roots[host] = path.join(tempDir(), host);
      for (const file of files) {
        const r = runCwb(
          ['--contexts', roots[host], '--index', index, 'import', path.join(REAL_FIXTURES, file)],
          { CWB_HOST: host },
        );
        expect(r.status, r.stderr).toBe(0);
      }
    }
    const s = await serve(['--contexts', roots.alpha!, '--index', index], { CWB_HOST: 'alpha' });
    const page = await open(s.url);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    // Two hosts: the column shows without being asked for.
    await expect.poll(() => rows(page).count()).toBe(3);
    await hostHeader(page).waitFor();
    expect((await hostCells(page)).sort()).toEqual(['alpha', 'alpha', 'beta']);
    expect(await hostOptions(page)).toEqual(['All hosts', 'alpha (2)', 'beta (1)']);
    await shot(page, 'hosts-fleet.png');

    await hostHeader(page).click();
    await expect.poll(() => hostCells(page)).toEqual(['alpha', 'alpha', 'beta']);

    await page.locator('select[name="host"]').selectOption('beta');
    await expect.poll(() => hostCells(page)).toEqual(['beta']);
    expect(await page.getByTestId('task-count').textContent()).toBe('1 task');
    await shot(page, 'hosts-fleet-filtered.png');
    await page.locator('select[name="host"]').selectOption('');
    await expect.poll(() => rows(page).count()).toBe(3);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("keeps the column out of the way on one host's tasks.db, and the filter still works", async () => {
    const root = path.join(tempDir(), 'contexts');
    const store = ContextStore.open(root, { host: 'solo-box' });
    for (const title of ['Fix the parser', 'Write the docs']) {
      const task = store.createTask({ title, prompt: `${title}, please` });
      await task.stop();
    }
    store.close();
    // An imported session records no host (no process of this app ran it).
    const file = path.join(REAL_FIXTURES, 'swe-agent/pydicom__pydicom-1458.traj');
    const r = runCwb(['--contexts', root, 'import', file]);
    expect(r.status, r.stderr).toBe(0);
    const s = await serve(['--contexts', root]);
    const page = await open(s.url);

    expect(await rows(page).count()).toBe(3);
    expect(await hostHeader(page).count()).toBe(0);
    expect(await hostOptions(page)).toEqual(['All hosts', 'solo-box (2)']);
    await page.locator('select[name="host"]').selectOption('solo-box');
    await expect.poll(() => page.getByTestId('task-count').textContent()).toBe('2 tasks');
    await page.locator('select[name="host"]').selectOption('');
    await expect.poll(() => rows(page).count()).toBe(3);

    // Shown from the Columns menu, it stays shown.
    await page.locator('.columns-menu summary').click();
    await page.locator('input[name="column-host"]').check();
    const shown = ['solo-box', 'solo-box', '—'];
    await expect.poll(async () => (await hostCells(page)).sort()).toEqual(shown);
    await page.reload();
    await rows(page).first().waitFor();
    await expect.poll(async () => (await hostCells(page)).sort()).toEqual(shown);
    await shot(page, 'hosts-one-host.png');
    await page.close();
  });
});
