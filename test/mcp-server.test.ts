import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, REPO_ROOT } from './support/run-ts';
import { realFixture } from './support/real-fixtures';

const SESSION = '53ea1606-cf60-417b-928a-068324ecc7b3';
const CWD = '/Users/alex/workspace/cli/.worktrees/2';
const OTHER_CWD = '/Users/soph/Work/entire/devenv/cli';
let dir: string;
let contexts: string;

function cwb(args: string[]): string {
  const run = spawnSync(process.execPath, [BUILT_CLI, '--contexts', contexts, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CWB_CONFIG: path.join(dir, 'config.yaml') },
  });
  expect(run.stderr).toBe('');
  return run.stdout;
}

async function connect(root: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(REPO_ROOT, 'bin', 'cwb.js'), '--contexts', root, 'mcp'],
    cwd: dir,
    env: { ...(process.env as Record<string, string>), CWB_CONFIG: path.join(dir, 'config.yaml') },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'cwb-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function text(result: unknown): string {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return content.map((c) => c.text).join('\n');
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-mcp-'));
  contexts = path.join(dir, 'contexts');
  cwb(['init']);
  // A Claude Code session that Claude Code compacted itself, as a sync would store it.
  cwb([
    'import',
    realFixture('..', 'real', 'claude-code-compacted', 'entire-53ea1606-compacted.jsonl'),
  ]);
  // Another person's session of the same project, in another folder.
  cwb([
    'import',
    realFixture('..', 'real', 'claude-code-compacted', 'entire-847ff7d2-compacted.jsonl'),
  ]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('cwb mcp with the SDK’s own client over stdio', () => {
  it('initializes, lists its read-only tools and recalls what the compaction removed', async () => {
    const client = await connect(contexts);
    try {
      expect(client.getServerVersion()?.name).toBe('context-workbench');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'list_sessions',
        'read_session',
        'recall',
        'search_sessions',
      ]);
      expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);

      const found = await client.callTool({
        name: 'recall',
        arguments: { session_id: SESSION, pattern: 'truncatePromptForStorage' },
      });
      expect(found.isError).toBeFalsy();
      const hits = text(found);
      expect(hits).toMatch(/its compactions removed messages #1-#\d+/);
      expect(hits).toMatch(/^#\d+ (assistant|tool|user): .*truncatePromptForStorage/m);

      const through = Number(/removed messages #1-#(\d+)/.exec(hits)![1]);
      const seq = Number(/^#(\d+) /m.exec(hits.split('\n').slice(1).join('\n'))![1]);
      expect(seq).toBeLessThanOrEqual(through);
      const read = text(
        await client.callTool({
          name: 'recall',
          arguments: { cwd: CWD, from_seq: seq, to_seq: seq },
        }),
      );
      expect(read).toContain(`#${seq} `);
      expect(read).toContain('truncatePromptForStorage');

      const listed = text(
        await client.callTool({ name: 'list_sessions', arguments: { cwd: CWD } }),
      );
      expect(listed).toContain('claude-code');
      const searched = text(
        await client.callTool({
          name: 'search_sessions',
          arguments: { query: 'truncatePromptForStorage', cwd: CWD },
        }),
      );
      expect(searched).toContain('truncatePromptForStorage');
    } finally {
      await client.close();
    }
  });

  it('searches sessions through the search index, by default those of its folder or below', async () => {
    const client = await connect(contexts);
    try {
      const listed = text(
        await client.callTool({ name: 'list_sessions', arguments: { all_folders: true } }),
      );
      const uuidIn = (folder: string): string =>
        listed
          .split('\n')
          .find((l) => l.includes(` ${folder} `))!
          .split(/\s+/)[0]!;
      const ours = uuidIn(CWD);
      const other = uuidIn(OTHER_CWD);
      const search = async (args: Record<string, unknown>): Promise<string> => {
        const result = await client.callTool({ name: 'search_sessions', arguments: args });
        expect(result.isError).toBeFalsy();
        return text(result);
      };

      // Both sessions hold the word; the default scope is the folder and what is below it.
      const scoped = await search({ query: 'checkpoint', cwd: CWD });
      expect(scoped).toMatch(new RegExp(`^${ours}  claude-code`, 'm'));
      expect(scoped).toMatch(/^#\d+ (assistant|tool|user)( \(\w+\))?: .*checkpoint/im);
      expect(scoped).not.toContain(other);
      const above = await search({ query: 'checkpoint', cwd: path.dirname(path.dirname(CWD)) });
      expect(above).toContain(ours);
      expect(above).not.toContain(other);
      // A folder whose name only starts like the session's (…/cl of …/cli) is another folder.
      const cl = path.dirname(path.dirname(CWD)).slice(0, -1);
      expect(await search({ query: 'checkpoint', cwd: cl })).toMatch(/^no matches/);
      const everywhere = await search({ query: 'checkpoint', all_folders: true, max_matches: 200 });
      expect(everywhere).toContain(ours);
      expect(everywhere).toContain(other);

      // The index's words, all in one message, in any order and far apart.
      const words = await search({ query: 'slog truncatePromptForStorage', cwd: CWD });
      expect(words).toContain(ours);
      expect(words).toMatch(/^#\d+ tool \(Read\): /m);
      // An exact path, as typed.
      const exact = await search({
        query: 'cmd/entire/cli/checkpoint',
        exact: true,
        cwd: CWD,
        max_matches: 3,
      });
      expect(exact).toContain('cmd/entire/cli/checkpoint');
      expect(exact).toContain('[more matches: narrow the query or raise max_matches]');
      expect(exact.split('\n').filter((l) => /^#\d+ /.test(l))).toHaveLength(3);
    } finally {
      await client.close();
    }
  });

  it('a contexts folder that is not there is a tool error, and the server keeps serving', async () => {
    const client = await connect(path.join(dir, 'nowhere'));
    try {
      const result = await client.callTool({ name: 'list_sessions', arguments: {} });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(`${path.join(dir, 'nowhere')} does not exist`);
      expect((await client.listTools()).tools).toHaveLength(4);
    } finally {
      await client.close();
    }
  });
});
