import type { Command } from 'commander';
import { SEARCH_ROLES, type SearchRole } from '../../shared/api/search-api';
import { searchAllSessions, keepSearchIndexCurrent } from '../../core/search/session-search';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { clip, formatTable, printJson, type Output } from '../output';
import { parseChoice, parseCount } from '../parse-args';
import { parseDayArg } from './usage';

interface SearchOptions {
  agent?: string;
  repo?: string;
  since?: string;
  role?: string;
  tool?: string;
  exact?: boolean;
  limit: string;
  json?: boolean;
}

/** How long indexing may run before `cwb search` says it is indexing. */
const QUIET_INDEXING_MS = 1000;

export function registerSearch(program: Command, output: Output): void {
  program
    .command('search')
    .description(
      'search the messages, tool calls and tool outputs of every task (words, "a phrase", prefix*)',
    )
    .argument('<query>', 'what to look for')
    .option('--agent <name>', 'only tasks of this agent (claude-code, codex, ...)')
    .option('--repo <repo>', 'only tasks of this repository (name or owner/repo)')
    .option('--since <date>', 'only tasks active on or after this day (YYYY-MM-DD)')
    .option('--role <role>', `only messages of this role (${SEARCH_ROLES.join(', ')})`)
    .option('--tool <name>', 'only calls to and outputs of this tool')
    .option('--exact', 'the text exactly as typed (paths, identifiers; case-sensitive)')
    .option('--limit <n>', 'at most this many hits', '20')
    .option('--json', 'print JSON')
    .action(async (query: string, opts: SearchOptions, cmd: Command) => {
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const input = {
        query,
        exact: opts.exact === true,
        limit: parseCount('--limit', opts.limit, 1, 200),
        ...(opts.agent !== undefined && { agent: opts.agent }),
        ...(opts.repo !== undefined && { repo: opts.repo }),
        ...(opts.since !== undefined && { since: parseDayArg('--since', opts.since) }),
        ...(opts.role !== undefined && {
          role: parseChoice<SearchRole>('--role', opts.role, SEARCH_ROLES),
        }),
        ...(opts.tool !== undefined && { tool: opts.tool }),
      };
      await withStore(ctx, (store) => {
        // The CLI indexes everything pending first (a first search after an upgrade indexes
        // every task once; each batch commits, so an interrupted run resumes).
        const started = Date.now();
        keepSearchIndexCurrent(store, Number.POSITIVE_INFINITY, (p) => {
          if (Date.now() - started > QUIET_INDEXING_MS && !opts.json)
            output.err(`cwb: indexing messages: ${p.indexed} indexed, ${p.remaining} tasks to go`);
        });
        const result = searchAllSessions(store, input, { catchUpMs: 0 });
        if (opts.json) {
          printJson(output, result);
          return;
        }
        if (result.hits.length === 0) {
          output.out(`No messages match ${JSON.stringify(query)}.`);
          return;
        }
        output.out(
          formatTable(
            ['TASK', 'SEQ', 'ROLE', 'AGENT', 'MATCH'],
            result.hits.map((h) => [
              h.uuid,
              String(h.seq),
              h.role,
              h.agent || 'cwb',
              clip(h.snippet, 100),
            ]),
            100,
          ),
        );
        const tasks = new Set(result.hits.map((h) => h.uuid)).size;
        output.out(
          `${result.hits.length} messages in ${tasks} tasks${result.more ? ' (more match: --limit)' : ''}`,
        );
      });
    });
}
