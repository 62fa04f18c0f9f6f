import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { MAX_SESSION_SEARCH_HITS } from '../../shared/api/search-api';
import { scrubSecrets, secretForms } from '../config/secrets';
import {
  ToolFailure,
  findSession,
  fitted,
  hitBlocks,
  inFolder,
  readWindow,
  removedThrough,
  searchAllSessions,
  searchSession,
  sessionLine,
  sessionsOf,
  type Invoke,
} from './session-tools';

export const MCP_SERVER_INFO = { name: 'context-workbench', version: '0.1.0' };

export interface McpHost {
  /** The workbench API; throws a ToolFailure when there is none (no contexts folder). */
  invoke(): Invoke;
  /** Values to scrub from every answer (API keys of the config and the environment). */
  secrets: readonly string[];
  /** Where the agent runs: the default scope of searches. */
  cwd: string;
}

type Text = { content: { type: 'text'; text: string }[]; isError?: boolean };

const caller = {
  session_id: z
    .string()
    .max(200)
    .optional()
    .describe('your session id (Claude Code and Codex give it to hooks; else leave out)'),
  cwd: z
    .string()
    .max(4096)
    .optional()
    .describe('your working directory (default: the folder this server was started in)'),
};

/**
 * `cwb mcp`: the workbench's sessions as MCP tools for the agents themselves, read-only.
 * Each tool answers text (secrets scrubbed, at most ~49 KiB as history_recall) or a tool
 * error saying what went wrong; nothing here throws into the SDK.
 */
export function createMcpServer(host: McpHost): McpServer {
  const server = new McpServer(MCP_SERVER_INFO);
  const known = secretForms(host.secrets, 8);
  const run = (fn: (invoke: Invoke) => Promise<string>) => async (): Promise<Text> => {
    try {
      const text = await fn(host.invoke());
      return { content: [{ type: 'text', text: scrubSecrets(text, known) }] };
    } catch (err) {
      const message = err instanceof ToolFailure ? err.message : `internal error: ${String(err)}`;
      return { content: [{ type: 'text', text: scrubSecrets(message, known) }], isError: true };
    }
  };

  server.registerTool(
    'recall',
    {
      description:
        "Search (pattern: plain text, case-insensitive) or read (from_seq..to_seq) the messages of YOUR OWN session that its compactions removed from your context. The session is found by session_id, else as the newest synced session in cwd. Seqs number the session's messages from 1.",
      inputSchema: {
        ...caller,
        pattern: z.string().min(1).max(500).optional(),
        from_seq: z.number().int().min(1).optional(),
        to_seq: z.number().int().min(1).optional(),
        max_matches: z.number().int().min(1).max(200).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async (invoke) => {
        const session = await findSession(invoke, { ...args, cwd: args.cwd ?? host.cwd });
        const through = await removedThrough(invoke, session.uuid);
        const head = `session ${session.uuid} (${session.agent || 'workbench'}): its compactions removed messages #1-#${through}`;
        if (through === 0)
          return `${head.replace(/removed.*$/, '')}no compaction has removed anything yet`;
        if (args.pattern) {
          const found = await searchSession(
            invoke,
            session.uuid,
            args.pattern,
            through,
            args.max_matches ?? 50,
          );
          if (found.lines.length === 0)
            return `${head}\nno matches for ${JSON.stringify(args.pattern)}`;
          return `${head}\n${fitted(found.lines, () => (found.more ? '[more matches: narrow the pattern]' : undefined))}`;
        }
        if (args.from_seq === undefined)
          throw new ToolFailure('give pattern to search or from_seq (and to_seq) to read');
        if (args.from_seq > through)
          throw new ToolFailure(`from_seq ${args.from_seq} was not removed: ${head}`);
        const to = Math.min(args.to_seq ?? through, through);
        return `${head}\n${await readWindow(invoke, session.uuid, args.from_seq, to)}`;
      })(),
  );

  server.registerTool(
    'search_sessions',
    {
      description:
        'Search the text of synced sessions (every agent the workbench syncs) through the search index: words (all must appear), "a phrase", prefix*; exact=true for a path or identifier exactly as typed. By default only sessions that ran in this working directory or below it; all_folders searches every session. Newest sessions first.',
      inputSchema: {
        query: z.string().min(1).max(500),
        exact: z.boolean().optional(),
        cwd: caller.cwd,
        all_folders: z.boolean().optional(),
        max_matches: z.number().int().min(1).max(MAX_SESSION_SEARCH_HITS).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async (invoke) => {
        const cwd = path.resolve(args.cwd ?? host.cwd);
        const found = await searchAllSessions(invoke, {
          query: args.query,
          ...(args.exact !== undefined && { exact: args.exact }),
          ...(args.all_folders !== true && { folder: cwd }),
          limit: args.max_matches ?? 50,
        });
        const scope = args.all_folders ? '' : ` under ${cwd}`;
        const pending =
          found.pending > 0
            ? `[${found.pending} sessions are still being indexed: their matches may be missing]`
            : undefined;
        if (found.hits.length === 0) {
          return [`no matches for ${JSON.stringify(args.query)}${scope}`, pending]
            .filter(Boolean)
            .join('\n');
        }
        const notes = [
          found.more ? '[more matches: narrow the query or raise max_matches]' : undefined,
          pending,
        ].filter(Boolean);
        return fitted(hitBlocks(found.hits), () => notes.join('\n') || undefined);
      })(),
  );

  server.registerTool(
    'read_session',
    {
      description:
        'Read a window of a session by seq: from_seq (default 1) to to_seq (default from_seq + 49).',
      inputSchema: {
        uuid: z.string().uuid().optional().describe('the session as list_sessions names it'),
        ...caller,
        from_seq: z.number().int().min(1).optional(),
        to_seq: z.number().int().min(1).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async (invoke) => {
        const uuid =
          args.uuid ?? (await findSession(invoke, { ...args, cwd: args.cwd ?? host.cwd })).uuid;
        const from = args.from_seq ?? 1;
        return readWindow(invoke, uuid, from, args.to_seq ?? from + 49);
      })(),
  );

  server.registerTool(
    'list_sessions',
    {
      description:
        'List synced sessions, newest first: by default those of this working directory or below it.',
      inputSchema: {
        cwd: caller.cwd,
        all_folders: z.boolean().optional(),
        agent: z.string().max(100).optional().describe('claude-code, codex, gemini-cli, …'),
        limit: z.number().int().min(1).max(200).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async (invoke) => {
        const cwd = args.cwd ?? host.cwd;
        const rows = await sessionsOf(
          invoke,
          (r) =>
            (args.all_folders === true || inFolder(r, cwd)) &&
            (args.agent === undefined || r.agent === args.agent),
        );
        if (rows.length === 0)
          return `no synced sessions${args.all_folders ? '' : ` under ${cwd}`}`;
        return fitted(rows.slice(0, args.limit ?? 50).map(sessionLine), () => undefined);
      })(),
  );
  return server;
}
