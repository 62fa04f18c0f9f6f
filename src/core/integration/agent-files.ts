import os from 'node:os';
import path from 'node:path';

export type IntegrationAgent = 'claude-code' | 'codex' | 'gemini-cli';
export const INTEGRATION_AGENTS: readonly IntegrationAgent[] = [
  'claude-code',
  'codex',
  'gemini-cli',
];
export type IntegrationScope = 'user' | 'project';

/** The MCP server's name in every agent's list. */
export const MCP_SERVER_NAME = 'context-workbench';

export interface AgentFiles {
  /** Where the agent reads SessionStart hooks (JSON, Claude Code's shape); none for Gemini CLI. */
  hooks?: string;
  /** Where it reads MCP servers, and in what format. */
  mcp: { file: string; format: 'json' | 'toml' };
}

export interface Locations {
  home?: string;
  /** The project folder (scope project). */
  cwd?: string;
}

/**
 * Each agent's own configuration files, as their documentation names them: Claude Code
 * `settings.json` (hooks) and `.mcp.json` / `~/.claude.json` (MCP servers); Codex
 * `hooks.json` and `config.toml` `[mcp_servers]` under `~/.codex` or the project's `.codex`;
 * Gemini CLI `settings.json` `mcpServers` under `~/.gemini` or the project's `.gemini`.
 */
export function agentFiles(
  agent: IntegrationAgent,
  scope: IntegrationScope,
  where: Locations = {},
): AgentFiles {
  const home = where.home ?? os.homedir();
  const project = where.cwd ?? process.cwd();
  const user = scope === 'user';
  switch (agent) {
    case 'claude-code':
      return {
        hooks: user
          ? path.join(home, '.claude', 'settings.json')
          : path.join(project, '.claude', 'settings.json'),
        mcp: {
          file: user ? path.join(home, '.claude.json') : path.join(project, '.mcp.json'),
          format: 'json',
        },
      };
    case 'codex': {
      const dir = user ? path.join(home, '.codex') : path.join(project, '.codex');
      return {
        hooks: path.join(dir, 'hooks.json'),
        mcp: { file: path.join(dir, 'config.toml'), format: 'toml' },
      };
    }
    case 'gemini-cli': {
      const dir = user ? path.join(home, '.gemini') : path.join(project, '.gemini');
      return { mcp: { file: path.join(dir, 'settings.json'), format: 'json' } };
    }
  }
}
