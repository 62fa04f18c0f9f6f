import fs from 'node:fs';
import path from 'node:path';
import type { Page, Route } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextStore } from '../src/core/store/context-store';
import { useChromium } from './support/use-chromium';
import { startServe } from './support/serve-process';
import { useTempDir } from './support/temp-dir';

/**
 * A view shows its first rows as soon as their own request answers: the timeline does not
 * wait for the task's header (getTask) nor the usage chart (contextUsage), a deep link asks
 * for its window first, and the task table does not wait for the filters' counts. Each slow
 * call is held back in the browser (Playwright routing) while the rows must already be there.
 */

const tempDir = useTempDir();
const browser = useChromium();
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A paused task of `total` short messages, written as the store writes them. */
function taskWithMessages(root: string, total: number): string {
  const store = ContextStore.open(root);
  const task = store.createTask({ title: 'First rows' });
  task.close();
  const lines: string[] = [];
  for (let seq = 1; seq <= total; seq++) {
    lines.push(
      JSON.stringify({
        seq,
        role: seq % 2 === 0 ? 'user' : 'assistant',
        content: `message ${seq}`,
        timestamp: new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(),
        tokens: 10,
        tokens_o200k: 10,
      }),
    );
  }
  fs.writeFileSync(path.join(task.dir, 'messages.jsonl'), `${lines.join('\n')}\n`);
  store.openTask(task.uuid).close(); // builds the offset index, as the first open would
  store.close();
  return task.uuid;
}

/** Holds every request to `/api/<operation>` (optionally only bodies matching) until released. */
async function hold(
  page: Page,
  operation: string,
  matching: (body: Record<string, unknown>) => boolean = () => true,
): Promise<{ held: () => number; release: () => Promise<void> }> {
  const waiting: Route[] = [];
  let released = false;
  await page.route(`**/api/${operation}`, async (route) => {
    const body = JSON.parse(route.request().postData() ?? '{}') as Record<string, unknown>;
    if (released || !matching(body)) return route.continue();
    waiting.push(route);
  });
  return {
    held: () => waiting.length,
    release: async () => {
      released = true;
      for (const route of waiting.splice(0)) await route.continue();
    },
  };
}

async function open(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  cleanups.push(() => page.close());
  return { page, errors };
}

describe('first rows in Chromium', () => {
  it('shows the timeline at a deep link while the header and the usage chart are still on their way', async () => {
    const root = path.join(tempDir(), 'contexts');
    const uuid = taskWithMessages(root, 1000);
    const s = await startServe(['--contexts', root]);
    cleanups.push(() => s.stop());
    const { page, errors } = await open();
    const header = await hold(page, 'getTask');
    const chart = await hold(page, 'contextUsage');
    const windows: number[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/readMessages'))
        windows.push((JSON.parse(r.postData() ?? '{}') as { from: number }).from);
    });

    await page.goto(`${s.url}#/task/${uuid}/timeline?seq=700`);
    const target = page.locator('.tv-target .tv-row[data-seq="700"]');
    await target.waitFor({ timeout: 30_000 });
    expect(await target.textContent()).toContain('message 700');
    // The rows came while getTask and contextUsage were both still held.
    expect(header.held()).toBeGreaterThan(0);
    expect(chart.held()).toBeGreaterThan(0);
    expect(await page.locator('.tv-header-loading').count()).toBe(1);
    expect(await page.locator('.tv-chart-placeholder').count()).toBe(1);
    // The window holding seq 700 was the first asked for (no detour through window 1).
    expect(windows[0]).toBe(601);

    await header.release();
    await page.locator('.tv-header h2', { hasText: 'First rows' }).waitFor({ timeout: 30_000 });
    await chart.release();
    await page.locator('.tv-chart canvas').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('.tv-target .tv-row[data-seq="700"]').count()).toBe(1);
    expect(errors).toEqual([]);
  }, 120_000);

  it('shows the task table before the filters have their counts', async () => {
    const root = path.join(tempDir(), 'contexts');
    taskWithMessages(root, 3);
    const s = await startServe(['--contexts', root]);
    cleanups.push(() => s.stop());
    const { page, errors } = await open();
    const facets = await hold(page, 'queryTasks', (body) => body.facets === true);

    await page.goto(s.url);
    await page
      .locator('[role="grid"] [role="row"][data-uuid]')
      .first()
      .waitFor({ timeout: 30_000 });
    expect(facets.held()).toBe(1);
    expect(await page.locator('.chip-count').count()).toBe(0);

    await facets.release();
    await page.locator('.chip-count').first().waitFor({ timeout: 30_000 });
    const counts = await page.locator('.chip-count').allTextContents();
    expect(counts.map(Number).reduce((a, b) => a + b, 0)).toBe(1);
    expect(errors).toEqual([]);
  }, 120_000);

  it('starts the first view’s calls as the script loads, before React renders, and makes each once', async () => {
    const root = path.join(tempDir(), 'contexts');
    const uuid = taskWithMessages(root, 1000);
    const s = await startServe(['--contexts', root]);
    cleanups.push(() => s.stop());
    for (const hash of ['', `#/task/${uuid}/timeline?seq=700`]) {
      const { page, errors } = await open();
      const bodies: string[] = [];
      page.on('request', (r) => {
        const op = /\/api\/(\w+)$/.exec(r.url())?.[1];
        if (op) bodies.push(`${op} ${r.postData() ?? ''}`);
      });
      await page.goto(`${s.url}${hash}`);
      const firstRow = hash
        ? '.tv-target .tv-row[data-seq="700"]'
        : '[role="grid"] [role="row"][data-uuid]';
      await page.locator(firstRow).first().waitFor({ timeout: 30_000 });
      const early = hash
        ? ['appInfo', 'getTask', 'listCompactions', 'contextUsage', 'readMessages']
        : ['appInfo', 'queryTasks'];
      // Module scripts run before DOMContentLoaded; React's first render and effects after it.
      // A call's resource entry appears once it has answered (the chart's may come later).
      const readTiming = async () =>
        (await page.evaluate(`(() => {
          const nav = performance.getEntriesByType('navigation')[0];
          const api = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/'));
          return { dcl: nav.domContentLoadedEventStart, api: api.map((e) => [e.name.split('/').pop(), e.startTime]) };
        })()`)) as { dcl: number; api: [string, number][] };
      const answered = async (): Promise<boolean> => {
        const { api } = await readTiming();
        return early.every((op) => api.some(([name]) => name === op));
      };
      await expect.poll(answered, { timeout: 30_000 }).toBe(true);
      const timing = await readTiming();
      for (const op of early) {
        const started = timing.api.find(([name]) => name === op)?.[1];
        expect(started, `${op} in ${JSON.stringify(timing)}`).toBeLessThan(timing.dcl);
      }
      // The hooks claimed the early answers: no call was made twice with the same input.
      expect(bodies.length, bodies.join('\n')).toBe(new Set(bodies).size);
      expect(errors).toEqual([]);
    }
  }, 120_000);
});
