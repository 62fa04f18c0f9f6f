import { z } from 'zod';
import { hostPathSchema } from './common-schemas';
import { operation } from './operation';

/**
 * Settings › Agent integration: the compaction hook and the MCP server in each agent's own
 * configuration (`cwb hooks install|uninstall|status`, src/core/integration). Core proves
 * at compile time that these agents are the ones it can install into.
 */
export const INTEGRATION_AGENT_IDS = ['claude-code', 'codex', 'gemini-cli'] as const;
export type IntegrationAgentId = (typeof INTEGRATION_AGENT_IDS)[number];
export const INTEGRATION_SCOPES = ['user', 'project'] as const;
export type IntegrationScopeId = (typeof INTEGRATION_SCOPES)[number];

const where = {
  scope: z.enum(INTEGRATION_SCOPES).default('user'),
  /** The project folder (scope project): absolute; the host refuses `..` and links out of it. */
  project: hostPathSchema.optional(),
};

function projectWhenProjectScope(
  input: { scope: IntegrationScopeId; project?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (input.scope === 'project' && input.project === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['project'],
      message: 'the project scope needs the project folder',
    });
  if (input.scope === 'user' && input.project !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['project'],
      message: 'a project folder goes with the project scope only',
    });
}

export const integrationStatusInput = z.strictObject(where).superRefine(projectWhenProjectScope);

const change = {
  agent: z.enum(INTEGRATION_AGENT_IDS),
  action: z.enum(['install', 'uninstall']),
  ...where,
};

export const previewIntegrationInput = z.strictObject(change).superRefine(projectWhenProjectScope);

export const applyIntegrationInput = z
  .strictObject({
    ...change,
    /** The preview's planId: the files must still be as the preview read them. */
    planId: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'expected the planId of a preview')
      .optional(),
  })
  .superRefine(projectWhenProjectScope);

export type IntegrationPieceKind = 'hook' | 'mcp';

/** One thing install writes (the hook, the MCP server) and where it stands now. */
export interface IntegrationPieceStatus {
  kind: IntegrationPieceKind;
  file: string;
  installed: boolean;
  /** The `cwb` the installed entry calls, and whether that file is there. */
  calls?: string;
  callsExists?: boolean;
  /** The file cannot be read or parsed: the message names it. */
  error?: string;
}

export interface AgentIntegrationStatus {
  agent: IntegrationAgentId;
  /** False where the agent has no hook point after a compaction (Gemini CLI). */
  hookSupported: boolean;
  pieces: IntegrationPieceStatus[];
}

export interface IntegrationStatusView {
  scope: IntegrationScopeId;
  project: string | null;
  /** The `cwb` an install would write into the agent's configuration; null: none found. */
  cwb: string | null;
  agents: AgentIntegrationStatus[];
}

export interface IntegrationFileChange {
  file: string;
  kind: IntegrationPieceKind;
  /** The file does not exist yet / uninstall leaves it empty and removes it. */
  created: boolean;
  removed: boolean;
  /** Unified diff, as `cwb hooks install --dry-run` prints it (secrets in it masked). */
  diff: string;
}

export interface IntegrationPreview {
  agent: IntegrationAgentId;
  action: 'install' | 'uninstall';
  scope: IntegrationScopeId;
  cwb: string;
  changes: IntegrationFileChange[];
  /** Files already as they should be. */
  unchanged: string[];
  /** Names what was read; applyIntegration with it refuses if a file changed since. */
  planId: string;
}

export interface IntegrationApplied {
  agent: IntegrationAgentId;
  action: 'install' | 'uninstall';
  changes: { file: string; kind: IntegrationPieceKind; backup: string | null; removed: boolean }[];
  unchanged: string[];
  status: AgentIntegrationStatus;
}

export const integrationOperations = {
  integrationStatus: operation(integrationStatusInput).returns<IntegrationStatusView>(),
  previewIntegration: operation(previewIntegrationInput).returns<IntegrationPreview>(),
  applyIntegration: operation(applyIntegrationInput).returns<IntegrationApplied>(),
};
