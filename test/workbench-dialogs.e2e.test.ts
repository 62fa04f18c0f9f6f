import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { useChromium } from './support/use-chromium';
import { REPO_ROOT } from './support/run-ts';
import { REAL_FIXTURES } from './support/real-fixtures';
import { startScriptedLlm } from './support/scripted-llm-server';
import { startServe } from './support/serve-process';
import { makeTaskEnv } from './support/task-env';
import { useTempDir } from './support/temp-dir';

/**
 * The dialogs and pages around the task browser, through a real `cwb serve` and a scripted
 * LLM: new task, settings, import by upload, export download, Japanese, dark theme.
 */

const FIXTURES = REAL_FIXTURES;
const RESULTS = path.join(REPO_ROOT, 'test-results');
const API_KEY = 'sk-dialog-test';
const tempDir = useTempDir();
const browser = useChromium();
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, name) });
}

async function setup() {
  const llm = await startScriptedLlm({
    flavor: 'openai',
    requireKey: API_KEY,
    models: ['gpt-4o', 'gpt-4o-mini'],
    script: [
      {
        tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
        usage: { prompt_tokens: 90, completion_tokens: 9 },
        delayMs: 600,
      },
      { content: 'gamma is on line 3.', usage: { prompt_tokens: 120, completion_tokens: 6 } },
      { content: 'Read notes.txt and found gamma.' },
    ],
  });
  cleanups.push(() => llm.close());
  const env = makeTaskEnv(tempDir(), { provider: 'openai', url: llm.url });
  const serve = await startServe(['--contexts', env.root, '--config', env.configFile], {
    OPENAI_API_KEY: API_KEY,
  });
  cleanups.push(() => serve.stop());
  const page = await browser().newPage({
    viewport: { width: 1440, height: 860 },
    acceptDownloads: true,
  });
  cleanups.push(() => page.close());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(serve.url);
  await page.getByText('No tasks yet').waitFor({ timeout: 30_000 });
  return { env, page, errors, llm };
}

describe('dialogs, settings and transfer in Chromium', () => {
  it('starts a task from the new-task dialog; its row goes live to completed', async () => {
    const { env, page, errors } = await setup();
    await shot(page, 'empty-state.png');
    await page.getByRole('button', { name: 'New task' }).click();
    const dialog = page.locator('dialog.new-task-dialog');
    await dialog.waitFor();
    // validation: both required fields say so next to them
    await dialog.getByRole('button', { name: 'Start task' }).click();
    await expect.poll(() => dialog.locator('.field-error').count()).toBe(2);
    await dialog.locator('textarea[name="prompt"]').fill('Find gamma in notes.txt');
    await dialog.locator('input[name="title"]').fill('Find gamma');
    await dialog.locator('input[name="workdir"]').fill(env.workdir);
    await dialog.locator('select[name="compaction"]').selectOption('presetOffline');
    await shot(page, 'new-task-dialog.png');
    await dialog.getByRole('button', { name: 'Start task' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.locator('.task-row[data-uuid]').filter({ hasText: 'Find gamma' });
    await row.waitFor({ timeout: 20_000 });
    await expect
      .poll(() => row.locator('.status').textContent(), { timeout: 30_000 })
      .toBe('Completed');
    await shot(page, 'new-task-completed.png');
    expect(errors).toEqual([]);
  }, 120_000);

  it('saves settings, shows a bad value next to its field, tests the provider, and reloads', async () => {
    const { page, env, errors } = await setup();
    await page.getByRole('link', { name: 'Settings' }).click();
    const form = page.locator('form.settings-form');
    await form.waitFor({ timeout: 15_000 });
    await form.getByRole('button', { name: 'Test connection' }).click();
    await expect
      .poll(() => page.getByTestId('provider-test-result').textContent(), { timeout: 15_000 })
      .toContain('Connected · 2 models');
    await form.locator('input[name="cleanup_days"]').fill('45');
    await form.locator('input[name="threshold_ratio"]').fill('7');
    await form.getByRole('button', { name: 'Save settings' }).click();
    const fieldError = form.locator('[data-field="compaction.threshold_ratio"] .field-error');
    await fieldError.waitFor({ timeout: 10_000 });
    await shot(page, 'settings-error.png');
    await form.locator('input[name="threshold_ratio"]').fill('0.75');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await form.locator('.form-actions .form-ok').waitFor();
    expect(fs.readFileSync(env.configFile, 'utf8')).toMatch(/cleanup_days: 45/);
    await page.reload();
    await form.waitFor({ timeout: 15_000 });
    expect(await form.locator('input[name="cleanup_days"]').inputValue()).toBe('45');
    expect(await form.locator('input[name="threshold_ratio"]').inputValue()).toBe('0.75');
    await shot(page, 'settings.png');
    expect(errors).toEqual([]);
  }, 120_000);

  it('imports by upload, downloads an export, switches to Japanese and the dark theme', async () => {
    const { page, errors } = await setup();
    await page.getByRole('button', { name: 'Import' }).click();
    const dialog = page.locator('dialog.import-dialog');
    await dialog.waitFor();
    await dialog
      .locator('input[type="file"]')
      .setInputFiles(path.join(FIXTURES, 'swe-agent', 'pydicom__pydicom-1458.traj'));
    await dialog.locator('.log-ok').waitFor({ timeout: 30_000 });
    expect(await dialog.locator('.log-ok').textContent()).toContain('1 task imported');
    await shot(page, 'import-dialog.png');
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    const row = page.locator('.task-row[data-uuid]').first();
    await row.waitFor({ timeout: 15_000 });

    await page.getByRole('button', { name: 'Export…' }).click();
    const exportDialog = page.locator('dialog.export-dialog');
    await exportDialog.locator('select[name="format"]').selectOption('markdown');
    const download = page.waitForEvent('download');
    await exportDialog.getByRole('button', { name: 'Export', exact: true }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.md$/);
    const saved = path.join(tempDir(), file.suggestedFilename());
    await file.saveAs(saved);
    expect(fs.readFileSync(saved, 'utf8')).toContain('pydicom');
    await exportDialog.locator('.log-ok').first().waitFor();
    // Markdown is not redacted unless asked, and the dialog says so.
    expect(await exportDialog.locator('.transfer-log').textContent()).toContain('Not redacted');
    // A page to share: redaction is on by itself, and the dialog says what it found.
    await exportDialog.locator('select[name="format"]').selectOption('html');
    expect(await exportDialog.locator('input[name="redact"]').isChecked()).toBe(true);
    await exportDialog.locator('input[name="redact-home"]').check();
    const page2 = page.waitForEvent('download');
    await exportDialog.getByRole('button', { name: 'Export', exact: true }).click();
    const htmlFile = await page2;
    expect(htmlFile.suggestedFilename()).toMatch(/\.html$/);
    const savedPage = path.join(tempDir(), htmlFile.suggestedFilename());
    await htmlFile.saveAs(savedPage);
    const html = fs.readFileSync(savedPage, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<strong>Redacted.</strong>');
    await exportDialog.getByText(/^Redacted: /).waitFor();
    await shot(page, 'export-dialog.png');
    await exportDialog.getByRole('button', { name: 'Close', exact: true }).click();

    await page.locator('[data-name="language"] button[data-value="ja"]').click();
    await page.getByRole('heading', { name: 'タスク' }).waitFor();
    expect(await page.locator('.sort-button[data-column="status"]').textContent()).toContain(
      '状態',
    );
    expect(await page.getByRole('button', { name: '新規タスク' }).count()).toBe(1);
    // Dates follow the app's language, not the browser's: the day field and the table.
    const from = page.locator('.day-input[data-day="from"]');
    await from.fill('2025-06-01');
    await from.press('Enter');
    expect(await from.inputValue()).toBe('2025/06/01');
    // The count is the new query's once its answer comes (a task or more after the key).
    await expect.poll(() => page.getByTestId('task-count').textContent()).toBe('1 件のタスク');
    // Duration is hidden by default (the table fits 1400 px); the Columns menu shows it.
    await page.locator('.columns-menu > summary').click();
    await page.locator('input[name="column-duration"]').check();
    await page.locator('.columns-menu > summary').click();
    expect(await page.locator('.task-row .cell-duration').first().textContent()).toMatch(/秒$/);
    expect(await page.locator('.task-row .cell-tokens').first().textContent()).toMatch(/万$/);
    await shot(page, 'browser-ja.png');
    await page.locator('[data-name="theme"] button[data-value="dark"]').click();
    expect(await page.evaluate<string>('document.documentElement.dataset.theme')).toBe('dark');
    const bg = await page.evaluate<string>(
      'getComputedStyle(document.documentElement).backgroundColor',
    );
    expect(bg).toBe('rgb(19, 22, 32)');
    await shot(page, 'browser-dark-ja.png');
    await page.getByRole('link', { name: '設定' }).click();
    await page.locator('form.settings-form').waitFor({ timeout: 15_000 });
    await shot(page, 'settings-dark-ja.png');
    expect(errors).toEqual([]);
  }, 120_000);
});
