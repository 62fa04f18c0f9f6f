import crypto from 'node:crypto';
import os from 'node:os';
import type {
  AgentIntegrationStatus,
  IntegrationAgentId,
  IntegrationPieceKind,
  IntegrationScopeId,
} from '../../shared/api/integration-api';
import type { WorkbenchHandlers } from '../../shared/api/workbench-api';
import type { ServiceContext } from '../api/service-context';
import { secretValues } from '../config/secrets';
import { CwbError } from '../errors';
import { INTEGRATION_AGENTS, type IntegrationAgent, type IntegrationScope } from './agent-files';
import { cwbForAgents } from './cwb-on-path';
import {
  applyPlan,
  integrationStatus,
  isEmptyShell,
  planIntegration,
  type FileChange,
  type IntegrationOptions,
  type IntegrationPlan,
} from './install';
import { changeDiff, diffForScreen } from './plan-diff';
import { checkedProjectFolder, checkNoLinks } from './project-folder';

// The contract's agents and scopes are the ones install knows, both ways.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameAgents: Exact<IntegrationAgent, IntegrationAgentId> = true;
const sameScopes: Exact<IntegrationScope, IntegrationScopeId> = true;
void sameAgents;
void sameScopes;

interface Where {
  scope: IntegrationScope;
  project?: string | undefined;
}

const kindOf = (what: string): IntegrationPieceKind =>
  what.startsWith('SessionStart') ? 'hook' : 'mcp';

/**
 * Settings › Agent integration: `cwb hooks status|install|uninstall` for the UI, over IPC
 * and HTTP. The files written are the agent's own, in the host's home folder or a project
 * folder the request names; the latter is checked (absolute, no `..`, a folder) and nothing
 * is written through a symbolic link. The preview carries a planId so that what is written
 * is what the user looked at.
 */
export function integrationHandlers(
  ctx: ServiceContext,
): Pick<WorkbenchHandlers, 'integrationStatus' | 'previewIntegration' | 'applyIntegration'> {
  const options = (where: Where, cwb: string | null): IntegrationOptions => ({
    cwb: cwb ?? 'cwb',
    home: ctx.env.HOME || os.homedir(),
    ...(where.scope === 'project' && { cwd: checkedProjectFolder(where.project ?? '') }),
  });
  const statusOf = (agent: IntegrationAgent, where: Where): AgentIntegrationStatus => ({
    agent,
    hookSupported: agent !== 'gemini-cli',
    pieces: integrationStatus(agent, where.scope, options(where, null)).map((p) => ({
      kind: kindOf(p.what),
      file: p.file,
      installed: p.installed,
      ...(p.calls !== undefined && { calls: p.calls, callsExists: p.callsExists === true }),
      ...(p.error !== undefined && { error: p.error }),
    })),
  });
  const planned = (input: Where & { agent: IntegrationAgent; action: 'install' | 'uninstall' }) => {
    const cwb = cwbForAgents(ctx.env);
    if (cwb === null && input.action === 'install')
      throw new CwbError(
        'not_found',
        'no cwb command to call from the agent: install the command line (npm install -g context-workbench) or set CWB_BIN, then try again',
      );
    const opts = options(input, cwb);
    const plan = planIntegration(input.action, input.agent, input.scope, opts);
    for (const change of plan.changes) checkNoLinks(change.file, opts.cwd);
    return { plan, cwb: opts.cwb, id: planId(plan, input.action, opts.cwb) };
  };
  return {
    integrationStatus: async (where) => ({
      scope: where.scope,
      project: where.scope === 'project' ? checkedProjectFolder(where.project ?? '') : null,
      cwb: cwbForAgents(ctx.env),
      agents: INTEGRATION_AGENTS.map((agent) => statusOf(agent, where)),
    }),
    previewIntegration: async (input) => {
      const { plan, cwb, id } = planned(input);
      const secrets = configSecrets(ctx);
      return {
        agent: input.agent,
        action: input.action,
        scope: input.scope,
        cwb,
        changes: plan.changes.map((c) => ({
          file: c.file,
          kind: kindOf(c.what),
          created: c.before === null,
          removed: removes(c),
          diff: diffForScreen(changeDiff(c, input.action), secrets),
        })),
        unchanged: plan.unchanged,
        planId: id,
      };
    },
    applyIntegration: async (input) => {
      const { plan, id } = planned(input);
      if (input.planId !== undefined && input.planId !== id)
        throw new CwbError(
          'conflict',
          `${plan.changes.map((c) => c.file).join(', ') || 'the agent settings'}: changed since the preview; nothing was written: look at the new preview`,
        );
      write(plan);
      return {
        agent: input.agent,
        action: input.action,
        changes: plan.changes.map((c) => ({
          file: c.file,
          kind: kindOf(c.what),
          backup: c.before === null ? null : `${c.file}.cwb-backup`,
          removed: removes(c),
        })),
        unchanged: plan.unchanged,
        status: statusOf(input.agent, input),
      };
    },
  };
}

function removes(change: FileChange): boolean {
  return change.before !== null && isEmptyShell(change.after);
}

function planId(plan: IntegrationPlan, action: string, cwb: string): string {
  const read = plan.changes.map((c) => [c.file, c.before, c.after]);
  return crypto
    .createHash('sha256')
    .update(JSON.stringify([plan.agent, plan.scope, action, cwb, read, plan.unchanged]))
    .digest('hex');
}

function write(plan: IntegrationPlan): void {
  try {
    applyPlan(plan);
  } catch (err) {
    if (err instanceof CwbError) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new CwbError(
      'io',
      `${e.path ?? 'an agent settings file'} cannot be written (${e.code ?? e.message})`,
    );
  }
}

/** The configuration's own secrets, masked in a preview too (none when it does not load). */
function configSecrets(ctx: ServiceContext): string[] {
  try {
    return secretValues(ctx.loadConfig().config);
  } catch {
    return [];
  }
}
