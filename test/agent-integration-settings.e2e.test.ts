import fs from 'node:fs';
import path from 'node:path';
import { parseTree, findNodeAtLocation, type Node } from 'jsonc-parser';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest } from './support/raw-http';
import { REPO_ROOT } from './support/run-ts';
import { screenProblems, type ScreenProblems } from './support/screen-checks';
import { startServe, type ServeProcess } from './support/serve-process';
import { useChromium } from './support/use-chromium';
import { useTempDir } from './support/temp-dir';

/**
 * Settings › Agent integration through a real `cwb serve` in Chromium, on a temporary home
 * folder holding the agents' settings as people have them: the preview shows the change,
 * writing it adds the hook and keeps every other key byte for byte, uninstalling gives the
 * file back; a file that does not parse is named. Screens in test-results/.
 */

const RESULTS = path.join(REPO_ROOT, 'test-results');
const tempDir = useTempDir();
const browser = useChromium();
const serves: ServeProcess[] = [];
afterEach(async () => {
  for (const s of serves.splice(0)) await s.stop();
});

/** Claude Code's settings.json with hooks, permissions and a status line of the user's own. */
const CLAUDE_SETTINGS = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"],
    "deny": ["Read(./.env)"]
  },
  "env": { "CLAUDE_CODE_ENABLE_TELEMETRY": "0" },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "~/.claude/hooks/check-bash.sh", "timeout": 5 }]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup|compact",
        "hooks": [{ "type": "command", "command": "cat ~/notes/today.md" }]
      }
    ]
  },
  "model": "opus",
  "statusLine": { "type": "command", "command": "~/.claude/statusline.sh" }
}
`;

/** ~/.claude.json as Claude Code keeps it (one line), with another MCP server. */
const CLAUDE_JSON = `{"numStartups":212,"installMethod":"native","autoUpdates":false,"projects":{"/home/me/repo":{"allowedTools":[],"mcpServers":{}}},"mcpServers":{"github":{"type":"http","url":"https://api.githubcopilot.com/mcp/"}},"userID":"4f1c"}`;

const CODEX_TOML = `# ~/.codex/config.toml
model = "gpt-5.1-codex"
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
`;

/** A Gemini CLI settings file cut off mid-write. */
const GEMINI_BROKEN = `{
  "theme": "GitHub",
  "mcpServers": {
`;

function homeFolder(): { home: string; settings: string; claudeJson: string; gemini: string } {
  const home = tempDir();
  const settings = path.join(home, '.claude', 'settings.json');
  const claudeJson = path.join(home, '.claude.json');
  const gemini = path.join(home, '.gemini', 'settings.json');
  fs.mkdirSync(path.dirname(settings), { recursive: true });
  fs.mkdirSync(path.join(home, '.codex'));
  fs.mkdirSync(path.dirname(gemini));
  fs.writeFileSync(settings, CLAUDE_SETTINGS);
  fs.writeFileSync(claudeJson, CLAUDE_JSON);
  fs.writeFileSync(path.join(home, '.codex', 'config.toml'), CODEX_TOML);
  fs.writeFileSync(gemini, GEMINI_BROKEN);
  return { home, settings, claudeJson, gemini };
}

async function serveFor(home: string): Promise<ServeProcess> {
  const s = await startServe(['--contexts', path.join(home, 'contexts')], {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    CWB_BIN: path.join(REPO_ROOT, 'bin', 'cwb.js'),
  });
  serves.push(s);
  return s;
}

/** The text of the value at `where` in a JSON document, exactly as written. */
function rawAt(text: string, where: (string | number)[]): string {
  const node: Node | undefined = findNodeAtLocation(parseTree(text)!, where);
  if (!node) throw new Error(`nothing at ${where.join('.')}`);
  return text.slice(node.offset, node.offset + node.length);
}

const uiScript = (ui: { theme: string; language: string }): string =>
  `localStorage.setItem('cwb.ui', ${JSON.stringify(JSON.stringify(ui))})`;

async function openSection(page: Page, url: string) {
  await page.goto(`${url.replace(/\/\?.*$/, '/')}#/settings`);
  const section = page.getByTestId('integration-section');
  await section.locator('li[data-agent="claude-code"]').waitFor({ timeout: 30_000 });
  return section;
}

describe('Settings › Agent integration', () => {
  it('previews, installs and uninstalls the hook for Claude Code, keeping the rest of settings.json byte for byte', async () => {
    const { home, settings, claudeJson, gemini } = homeFolder();
    const s = await serveFor(home);
    const page = await browser().newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(s.url);
    await page.getByRole('link', { name: 'Settings' }).click();
    const section = page.getByTestId('integration-section');
    const claude = section.locator('li[data-agent="claude-code"]');
    await claude.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => section.textContent(), { timeout: 30_000 })
      .toContain(`The agents will call ${path.join(REPO_ROOT, 'bin', 'cwb.js')}`);
    expect(await claude.locator('[data-piece="hook"]').textContent()).toContain('Not installed');
    expect(await claude.locator('[data-piece="hook"]').textContent()).toContain(settings);

    // The file that does not parse is named, and nothing can be written to it.
    const geminiRow = section.locator('li[data-agent="gemini-cli"]');
    expect(await geminiRow.getByRole('alert').textContent()).toContain(
      `${gemini} cannot be parsed`,
    );
    expect(await geminiRow.getByRole('button', { name: /Install/ }).isDisabled()).toBe(true);

    // Install: the preview first; nothing is written until confirmed.
    await claude.getByRole('button', { name: 'Install… Claude Code', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Install into Claude Code' });
    const hookDiff = dialog.locator(`section[data-file="${settings}"] .integration-diff`);
    await hookDiff.waitFor();
    const command = `${path.join(REPO_ROOT, 'bin', 'cwb.js')} hook claude-code`;
    expect(await hookDiff.locator('.diff-add').allTextContents()).toContainEqual(
      expect.stringContaining(`"command": "${command}"`),
    );
    expect(await dialog.locator(`section[data-file="${claudeJson}"]`).count()).toBe(1);
    fs.mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, 'settings-integration-preview.png') });
    expect(fs.readFileSync(settings, 'utf8')).toBe(CLAUDE_SETTINGS);
    expect(fs.readFileSync(claudeJson, 'utf8')).toBe(CLAUDE_JSON);

    await dialog.getByRole('button', { name: 'Write the change' }).click();
    await expect
      .poll(() => section.getByRole('status').last().textContent(), { timeout: 30_000 })
      .toContain('Claude Code: 2 files changed');
    await expect
      .poll(() => claude.locator('[data-piece="hook"]').textContent(), { timeout: 30_000 })
      .toContain('Installed');
    expect(await claude.locator('[data-piece="mcp"]').textContent()).toContain(
      `Installed · calls ${path.join(REPO_ROOT, 'bin', 'cwb.js')}`,
    );

    // The hook is in; every other key, and the other hooks, are as they were, byte for byte.
    const installed = fs.readFileSync(settings, 'utf8');
    for (const key of ['$schema', 'permissions', 'env', 'model', 'statusLine'])
      expect(rawAt(installed, [key]), key).toBe(rawAt(CLAUDE_SETTINGS, [key]));
    expect(rawAt(installed, ['hooks', 'PreToolUse'])).toBe(
      rawAt(CLAUDE_SETTINGS, ['hooks', 'PreToolUse']),
    );
    expect(rawAt(installed, ['hooks', 'SessionStart', 0])).toBe(
      rawAt(CLAUDE_SETTINGS, ['hooks', 'SessionStart', 0]),
    );
    const ours = JSON.parse(installed) as {
      hooks: { SessionStart: { matcher: string; hooks: { command: string }[] }[] };
    };
    expect(ours.hooks.SessionStart[1]).toMatchObject({
      matcher: 'compact',
      hooks: [{ type: 'command', command }],
    });
    expect(fs.readFileSync(`${settings}.cwb-backup`, 'utf8')).toBe(CLAUDE_SETTINGS);
    const claudeJsonNow = fs.readFileSync(claudeJson, 'utf8');
    for (const key of ['numStartups', 'projects', 'userID'])
      expect(rawAt(claudeJsonNow, [key])).toBe(rawAt(CLAUDE_JSON, [key]));
    expect(rawAt(claudeJsonNow, ['mcpServers', 'github'])).toBe(
      rawAt(CLAUDE_JSON, ['mcpServers', 'github']),
    );
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(RESULTS, 'settings-integration-installed.png') });

    // Uninstall: both files exactly as they were.
    await claude.getByRole('button', { name: 'Uninstall… Claude Code', exact: true }).click();
    const undo = page.getByRole('dialog', { name: 'Uninstall from Claude Code' });
    await undo.locator('.integration-diff').first().waitFor();
    await undo.getByRole('button', { name: 'Write the change' }).click();
    await expect
      .poll(() => claude.locator('[data-piece="hook"]').textContent(), { timeout: 30_000 })
      .toContain('Not installed');
    expect(fs.readFileSync(settings, 'utf8')).toBe(CLAUDE_SETTINGS);
    expect(fs.readFileSync(claudeJson, 'utf8')).toBe(CLAUDE_JSON);
    expect(fs.readFileSync(gemini, 'utf8')).toBe(GEMINI_BROKEN);

    // Writing agents' settings takes the session token like everything else.
    const body = JSON.stringify({ agent: 'claude-code', action: 'install' });
    const anonymous = await rawRequest(s.port, {
      method: 'POST',
      path: '/api/applyIntegration',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(anonymous.status).toBe(401);
    const wrongToken = await rawRequest(s.port, {
      method: 'POST',
      path: '/api/applyIntegration',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer nope' },
      body,
    });
    expect(wrongToken.status).toBe(403);
    expect(fs.readFileSync(settings, 'utf8')).toBe(CLAUDE_SETTINGS);
    expect(errors).toEqual([]);
  }, 180_000);

  it('reads well at 900×700 in both languages and both themes, and is reached by keyboard', async () => {
    const { home } = homeFolder();
    const s = await serveFor(home);
    const seen: { screen: string; problems: ScreenProblems }[] = [];
    fs.mkdirSync(RESULTS, { recursive: true });
    for (const theme of ['light', 'dark'] as const) {
      for (const language of ['en', 'ja'] as const) {
        const tag = `${theme}${language === 'ja' ? '-ja' : ''}`;
        const page = await browser().newPage({ viewport: { width: 900, height: 700 } });
        await page.addInitScript(uiScript({ theme, language }));
        await page.goto(s.url);
        const section = await openSection(page, s.url);
        // Settings › Sources above it: every agent the sources know, by its name.
        const sources = page.getByTestId('sources-section');
        await sources.locator('tr[data-source="zed"]').waitFor();
        await sources.scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(RESULTS, `settings-sources-900-${tag}.png`) });
        seen.push({ screen: `sources-${tag}`, problems: await screenProblems(page, language) });
        await section.locator('li[data-agent="gemini-cli"]').scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(RESULTS, `settings-integration-900-${tag}.png`) });
        seen.push({ screen: `section-${tag}`, problems: await screenProblems(page, language) });

        // From the scope buttons, Tab reaches Codex's install button; Enter opens the preview.
        await section.locator('[data-name="integration-scope"] button[data-value="user"]').focus();
        const at = (): Promise<unknown> =>
          page.evaluate(
            `(() => { const el = document.activeElement; return el?.closest('li')?.dataset.agent + ':' + el?.getAttribute('name'); })()`,
          );
        for (let i = 0; i < 12 && (await at()) !== 'codex:integration-install'; i++)
          await page.keyboard.press('Tab');
        expect(await at()).toBe('codex:integration-install');
        await page.keyboard.press('Enter');
        const dialog = page.locator('dialog.integration-dialog');
        await dialog.locator('.integration-diff').first().waitFor({ timeout: 30_000 });
        await page.screenshot({
          path: path.join(RESULTS, `settings-integration-preview-900-${tag}.png`),
        });
        seen.push({ screen: `preview-${tag}`, problems: await screenProblems(page, language) });
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
        await page.close();
      }
    }
    const wrong = seen.filter(
      (x) =>
        x.problems.clipped.length +
          x.problems.overlapping.length +
          x.problems.wrongLanguage.length >
        0,
    );
    expect(wrong, JSON.stringify(wrong, null, 2)).toEqual([]);
    expect(fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8')).toBe(CODEX_TOML);
  }, 240_000);
});
