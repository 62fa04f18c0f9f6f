import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { applyPlan, integrationStatus, planIntegration } from './install';
import { INTEGRATION_AGENTS, agentFiles, type IntegrationAgent } from './agent-files';

/** Settings as people have them: other hooks of the same event, other servers, comments. */
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

const CLAUDE_JSON = `{"numStartups":212,"installMethod":"native","autoUpdates":false,"tipsHistory":{"memory-command":190},"projects":{"/Users/me/repo":{"allowedTools":[],"history":[],"mcpServers":{}}},"mcpServers":{"github":{"type":"http","url":"https://api.githubcopilot.com/mcp/"}},"userID":"4f1c"}`;

const CODEX_TOML = `# ~/.codex/config.toml
model = "gpt-5.1-codex"
approval_policy = "on-request"

[features]
web_search_request = true

[mcp_servers.playwright]
command = "npx"
args = ["@playwright/mcp@latest"]

[projects."/Users/me/repo"]
trust_level = "trusted"
`;

const GEMINI_SETTINGS = `{
  // theme and model
  "ui": { "theme": "GitHub" },
  "mcpServers": {
    "github": { "command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"] }
  },
  "hooks": { "enabled": true }
}
`;

let home: string;
const cwb = '/opt/cwb/bin/cwb';

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-integration-'));
  const write = (file: string, text: string): void => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  write(path.join(home, '.claude', 'settings.json'), CLAUDE_SETTINGS);
  write(path.join(home, '.claude.json'), CLAUDE_JSON);
  write(path.join(home, '.codex', 'config.toml'), CODEX_TOML);
  write(path.join(home, '.gemini', 'settings.json'), GEMINI_SETTINGS);
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(home, { recursive: true, withFileTypes: true })) {
    if (f.isFile() && !f.name.endsWith('.cwb-backup')) {
      const file = path.join(f.parentPath, f.name);
      out[path.relative(home, file)] = fs.readFileSync(file, 'utf8');
    }
  }
  return out;
}

const run = (action: 'install' | 'uninstall', agent: IntegrationAgent): number => {
  const plan = planIntegration(action, agent, 'user', { home, cwb });
  applyPlan(plan);
  return plan.changes.length;
};

describe.each(INTEGRATION_AGENTS)('%s, user scope', (agent) => {
  it('install, a second install and uninstall leave the other settings byte for byte', () => {
    const original = snapshot();
    expect(run('install', agent)).toBeGreaterThan(0);
    const installed = snapshot();
    expect(run('install', agent)).toBe(0);
    expect(snapshot()).toEqual(installed);
    run('uninstall', agent);
    // Every file as it was; a file install created (Codex's hooks.json) is gone again.
    expect(snapshot()).toEqual(original);
    expect(run('uninstall', agent)).toBe(0);
  });

  it('writes what the agent reads, calling this cwb, and says so in status', () => {
    run('install', agent);
    const files = agentFiles(agent, 'user', { home });
    const status = integrationStatus(agent, 'user', { home, cwb });
    expect(status.every((s) => s.installed && s.calls === cwb)).toBe(true);
    if (files.hooks) {
      const settings = JSON.parse(fs.readFileSync(files.hooks, 'utf8')) as {
        hooks: { SessionStart: { matcher: string; hooks: { command: string }[] }[] };
      };
      const ours = settings.hooks.SessionStart.find((g) => g.matcher === 'compact');
      expect(ours?.hooks[0]?.command).toBe(`${cwb} hook ${agent}`);
    }
    const text = fs.readFileSync(files.mcp.file, 'utf8');
    const servers =
      files.mcp.format === 'toml'
        ? (parseToml(text) as { mcp_servers: Record<string, unknown> }).mcp_servers
        : (JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')) as { mcpServers: Record<string, unknown> })
            .mcpServers;
    expect(servers['context-workbench']).toMatchObject({ command: cwb, args: ['mcp'] });
    expect(Object.keys(servers).length).toBeGreaterThan(1);
    expect(fs.existsSync(`${files.mcp.file}.cwb-backup`)).toBe(true);
  });
});

describe('a settings file that is a symbolic link (dotfiles)', () => {
  it('is written where it points, the link kept, and restored byte for byte', () => {
    const settings = path.join(home, '.claude', 'settings.json');
    const kept = path.join(home, 'dotfiles', 'claude-settings.json');
    fs.mkdirSync(path.dirname(kept), { recursive: true });
    fs.renameSync(settings, kept);
    fs.symlinkSync(kept, settings);
    run('install', 'claude-code');
    expect(fs.lstatSync(settings).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(kept, 'utf8')).toContain(`${cwb} hook claude-code`);
    expect(fs.readFileSync(`${kept}.cwb-backup`, 'utf8')).toBe(CLAUDE_SETTINGS);
    run('uninstall', 'claude-code');
    expect(fs.lstatSync(settings).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(kept, 'utf8')).toBe(CLAUDE_SETTINGS);
  });

  it('that leads nowhere is refused with an error naming it, nothing written', () => {
    const settings = path.join(home, '.claude', 'settings.json');
    fs.rmSync(settings);
    fs.symlinkSync(path.join(home, 'gone.json'), settings);
    expect(() => run('install', 'claude-code')).toThrow(
      /settings\.json is a symbolic link to .*gone\.json, which is not there/,
    );
    expect(fs.existsSync(path.join(home, 'gone.json'))).toBe(false);
  });
});

describe('files it cannot parse', () => {
  it('are left alone, nothing else is written, and the error names the file', () => {
    const settings = path.join(home, '.claude', 'settings.json');
    fs.writeFileSync(settings, '{"hooks": {,}');
    const before = snapshot();
    expect(() => planIntegration('install', 'claude-code', 'user', { home, cwb })).toThrow(
      settings,
    );
    expect(snapshot()).toEqual(before);
    const status = integrationStatus('claude-code', 'user', { home, cwb });
    expect(status[0]?.error).toContain(settings);
  });

  it('a broken config.toml too', () => {
    fs.writeFileSync(path.join(home, '.codex', 'config.toml'), 'model = \n[oops');
    expect(() => planIntegration('install', 'codex', 'user', { home, cwb })).toThrow(
      'config.toml cannot be parsed',
    );
  });
});

describe('project scope', () => {
  it('writes .claude/settings.json and .mcp.json in the project', () => {
    const project = path.join(home, 'repo');
    fs.mkdirSync(project);
    applyPlan(planIntegration('install', 'claude-code', 'project', { home, cwd: project, cwb }));
    expect(fs.existsSync(path.join(project, '.claude', 'settings.json'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(project, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: { 'context-workbench': { type: 'stdio', command: cwb, args: ['mcp'] } },
    });
  });
});
