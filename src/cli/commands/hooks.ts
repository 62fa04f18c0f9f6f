import type { Command } from 'commander';
import {
  INTEGRATION_AGENTS,
  type IntegrationAgent,
  type IntegrationScope,
} from '../../core/integration/agent-files';
import { cwbExecutable } from '../../core/integration/cwb-executable';
import {
  applyPlan,
  integrationStatus,
  planIntegration,
  type IntegrationPlan,
} from '../../core/integration/install';
import { changeDiff } from '../../core/integration/plan-diff';
import { agentLabel } from '../../shared/agents';
import { printJson, type Output } from '../output';
import { parseChoice } from '../parse-args';

interface Flags {
  scope?: string;
  dryRun?: boolean;
  json?: boolean;
}

const SCOPES = ['user', 'project'];

/**
 * `cwb hooks install|uninstall|status <agent>`: the compaction hook and the MCP server in
 * the agent's own configuration (src/core/integration; docs/agent-integration.md).
 */
export function registerHooks(program: Command, output: Output): void {
  const hooks = program
    .command('hooks')
    .description(
      "install the compaction hook and the MCP server into an agent's own configuration (claude-code, codex, gemini-cli)",
    );
  for (const action of ['install', 'uninstall'] as const) {
    hooks
      .command(action)
      .description(
        action === 'install'
          ? "add the hook and the MCP server to the agent's settings (merged: everything else kept byte for byte)"
          : 'remove exactly what install added',
      )
      .argument('<agent>', INTEGRATION_AGENTS.join(', '))
      .option('--scope <scope>', 'user (your home folder) or project (this folder)', 'user')
      .option('--dry-run', 'print the change, write nothing')
      .option('--json', 'print JSON')
      .action((agentArg: string, flags: Flags) => {
        const agent = parseChoice<IntegrationAgent>('agent', agentArg, INTEGRATION_AGENTS);
        const scope = parseChoice<IntegrationScope>('--scope', flags.scope ?? 'user', SCOPES);
        const plan = planIntegration(action, agent, scope, { cwb: cwbExecutable() });
        if (!flags.dryRun) applyPlan(plan);
        if (flags.json) return printJson(output, summary(plan, flags.dryRun === true));
        report(output, action, plan, flags.dryRun === true);
      });
  }
  hooks
    .command('status')
    .description('per agent: what is installed, where, and which cwb it calls')
    .argument('[agent]', INTEGRATION_AGENTS.join(', '))
    .option('--scope <scope>', 'user or project', 'user')
    .option('--json', 'print JSON')
    .action((agentArg: string | undefined, flags: Flags) => {
      const agents = agentArg
        ? [parseChoice<IntegrationAgent>('agent', agentArg, INTEGRATION_AGENTS)]
        : [...INTEGRATION_AGENTS];
      const scope = parseChoice<IntegrationScope>('--scope', flags.scope ?? 'user', SCOPES);
      const cwb = cwbExecutable();
      const rows = agents.map((agent) => ({
        agent,
        scope,
        pieces: integrationStatus(agent, scope, { cwb }),
      }));
      if (flags.json) return printJson(output, rows);
      for (const row of rows) {
        output.out(`${agentLabel(row.agent, row.agent)} (${row.agent}, ${scope}):`);
        for (const p of row.pieces) {
          const state = p.error
            ? `error: ${p.error}`
            : p.installed
              ? `installed, calls ${p.calls}${p.callsExists ? '' : ' (not found!)'}`
              : 'not installed';
          output.out(`  ${p.what}: ${state}\n    ${p.file}`);
        }
      }
    });
}

function summary(plan: IntegrationPlan, dryRun: boolean) {
  return {
    agent: plan.agent,
    scope: plan.scope,
    dryRun,
    changed: plan.changes.map((c) => ({ file: c.file, what: c.what, created: c.before === null })),
    unchanged: plan.unchanged,
  };
}

function report(
  output: Output,
  action: 'install' | 'uninstall',
  plan: IntegrationPlan,
  dryRun: boolean,
): void {
  if (plan.changes.length === 0) {
    output.out(
      `Nothing to change: ${plan.agent} is already ${action === 'install' ? 'set up' : 'without the workbench'} (${plan.unchanged.join(', ')}).`,
    );
    return;
  }
  for (const change of plan.changes) {
    if (dryRun) {
      output.out(changeDiff(change, action));
      continue;
    }
    const verb = action === 'install' ? 'added to' : 'removed from';
    const backup = change.before !== null ? ` (previous copy: ${change.file}.cwb-backup)` : '';
    output.out(`${change.what} ${verb} ${change.file}${backup}`);
  }
  if (dryRun) output.out('(dry run: nothing was written)');
  else if (action === 'install')
    output.out(`Restart ${plan.agent} (or start a new session) for it to read the change.`);
}
