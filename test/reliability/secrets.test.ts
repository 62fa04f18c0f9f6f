/**
 * Secrets (issue 9): a task runs through `cwb run` with an API key in the environment
 * (OPENAI_API_KEY) and in config.yaml as `${OPENAI_API_KEY}`, against a scripted server that
 * requires it; the model asks for the key through run_command every way a shell allows; a
 * second task gets an error message that echoes the key (a misbehaving proxy). Then every
 * export format, `show`, `messages`, `tasks` and `doctor` run, and every byte the app
 * wrote — the contexts root recursively (tasks.db and its WAL included), the exports (zip
 * entries decompressed), HOME and XDG folders (logs, caches), the workdir, and every line
 * the CLI and the task processes printed — is searched for the key: absent.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import yauzl from 'yauzl';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextStore } from '../../src/core/store/context-store';
import { spawnCwb, waitForExit } from '../support/run-ts';
import {
  startScriptedLlm,
  type ScriptStep,
  type ScriptedLlm,
} from '../support/scripted-llm-server';
import { allFiles, makeTaskEnv } from '../support/task-env';
import { useTempDir } from '../support/temp-dir';

const tempDir = useTempDir('cwb-secrets-');
const servers: ScriptedLlm[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** Every entry of a zip, decompressed (a key inside a deflated entry is invisible to grep). */
function zipEntries(file: string): Promise<{ name: string; data: Buffer }[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out: { name: string; data: Buffer }[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const parts: Buffer[] = [];
          stream.on('data', (d: Buffer) => parts.push(d));
          stream.on('end', () => {
            out.push({ name: entry.fileName, data: Buffer.concat(parts) });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** Where the key turns up: files (by path), zip entries and captured output. */
async function findKey(
  key: string,
  dirs: string[],
  outputs: Record<string, string>,
): Promise<string[]> {
  const found: string[] = [];
  const forms = [key, Buffer.from(key).toString('base64'), encodeURIComponent(key)];
  const has = (data: Buffer | string): boolean => forms.some((f) => data.includes(f));
  for (const dir of dirs) {
    for (const file of allFiles(dir)) {
      const data = fs.readFileSync(file);
      if (has(data)) found.push(file);
      if (file.endsWith('.zip'))
        for (const e of await zipEntries(file)) if (has(e.data)) found.push(`${file}!${e.name}`);
    }
  }
  for (const [what, text] of Object.entries(outputs)) if (has(text)) found.push(what);
  return found;
}

describe('an API key never lands in anything the app writes', () => {
  it('cwb run with the key in the environment and config.yaml, exports, show, messages, doctor: the key is nowhere', async () => {
    const KEY = `sk-cwb-${crypto.randomBytes(16).toString('hex')}`;
    let proxyEcho = false;
    const steps: ScriptStep[] = [
      {
        content: 'Let me look at my environment.',
        tool_calls: [
          {
            name: 'run_command',
            arguments: {
              command:
                'printenv OPENAI_API_KEY; echo "k=$OPENAI_API_KEY"; env | grep -i -e key -e token; set | grep -i api_key',
            },
          },
          { name: 'read_file', arguments: { path: 'notes.txt' } },
        ],
        usage: { prompt_tokens: 50, completion_tokens: 5 },
      },
      {
        tool_calls: [
          { name: 'write_file', arguments: { path: 'out/result.txt', content: 'done\n' } },
        ],
        usage: { prompt_tokens: 60, completion_tokens: 5 },
      },
      { content: 'Finished.', usage: { prompt_tokens: 70, completion_tokens: 2 } },
      { content: 'Summary: looked around and wrote out/result.txt.' },
    ];
    const llm = await startScriptedLlm({
      flavor: 'openai',
      requireKey: KEY,
      script: (_r, i) =>
        proxyEcho
          ? {
              status: 400,
              error: {
                message: `upstream refused the request made with key ${KEY} (Bearer ${KEY})`,
              },
            }
          : steps[i]!,
    });
    servers.push(llm);
    const base = tempDir();
    const env = makeTaskEnv(base, {
      provider: 'openai',
      url: llm.url,
      extraYaml: 'tools:\n  run_command: true\n',
    });
    const home = path.join(base, 'home');
    const exportsDir = path.join(base, 'exports');
    fs.mkdirSync(home);
    fs.mkdirSync(exportsDir);
    const childEnv = {
      OPENAI_API_KEY: KEY,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
      XDG_STATE_HOME: path.join(home, '.local', 'state'),
      XDG_CACHE_HOME: path.join(home, '.cache'),
      TMPDIR: path.join(base, 'tmp'),
    };
    fs.mkdirSync(childEnv.TMPDIR);
    const global = ['--contexts', env.root, '--config', env.configFile];
    const outputs: Record<string, string> = {};

    const run = await waitForExit(
      spawnCwb(
        [
          ...global,
          'run',
          '--prompt',
          'Look around, then write out/result.txt',
          '--workdir',
          env.workdir,
          '--json',
        ],
        childEnv,
      ),
    );
    outputs['cwb run (stdout)'] = run.stdout;
    outputs['cwb run (stderr)'] = run.stderr;
    expect(run.code, run.stderr).toBe(0);
    const uuid = (JSON.parse(run.stdout) as { uuid: string; status: string }).uuid;
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed' });
    // The key reached the server (the run needed it) ...
    expect(llm.chatRequests().every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    // ... and the command the model ran did not get it.
    const store = ContextStore.open(env.root);
    const shellOutput = store
      .readTask(uuid)
      .messages(1, 100)
      .messages.find((m) => m.role === 'tool' && m.tool_name === 'run_command');
    store.close();
    expect(shellOutput?.content).toMatch(/^k=$/m);

    proxyEcho = true;
    const failed = await waitForExit(
      spawnCwb(
        [
          ...global,
          'run',
          '--prompt',
          'This one meets a proxy that echoes the key',
          '--workdir',
          env.workdir,
          '--json',
        ],
        childEnv,
      ),
    );
    outputs['cwb run, echoing proxy (stdout)'] = failed.stdout;
    outputs['cwb run, echoing proxy (stderr)'] = failed.stderr;
    expect(JSON.parse(failed.stdout)).toMatchObject({ status: 'failed' });
    const failedUuid = (JSON.parse(failed.stdout) as { uuid: string }).uuid;

    for (const [format, out] of [
      ['archive', path.join(exportsDir, 'tasks.zip')],
      ['markdown', path.join(exportsDir, 'md')],
      ['openai', path.join(exportsDir, 'openai')],
    ] as const) {
      const r = await waitForExit(
        spawnCwb([...global, 'export', uuid, failedUuid, '--format', format, '-o', out], childEnv),
      );
      outputs[`cwb export --format ${format}`] = r.stdout + r.stderr;
      expect(r.code, r.stderr).toBe(0);
    }
    // doctor asks the provider (the scripted server here) for its models, with the key.
    const commands = [
      ['show', uuid],
      ['show', failedUuid],
      ['messages', uuid, '--json', '--full'],
      ['messages', uuid, '--current', '--full'],
      ['tasks', '--json'],
      ['doctor'],
      ['compactions', uuid],
    ];
    const results = await Promise.all(
      commands.map((args) => waitForExit(spawnCwb([...global, ...args], childEnv))),
    );
    commands.forEach(
      (args, i) => (outputs[`cwb ${args.join(' ')}`] = results[i]!.stdout + results[i]!.stderr),
    );
    expect(outputs['cwb doctor']).toMatch(/provider OpenAI/);

    const found = await findKey(
      KEY,
      [env.root, exportsDir, home, env.workdir, childEnv.TMPDIR],
      outputs,
    );
    expect(found).toEqual([]);
    // The check itself finds the key where it is: the request headers the server recorded.
    expect(JSON.stringify(llm.requests[0]!.headers)).toContain(KEY);
  }, 120_000);
});

describe('a key a command finds is scrubbed before anything records it', () => {
  // The task process's environment holds no key (test/reliability/task-environ.test.ts),
  // so /proc/$PPID/environ gives nothing away; but a command can still find the key in a
  // file (a .env, a config it greps). Every tool result is scrubbed of the task's secrets
  // before it is recorded, so the key reaches neither messages.jsonl, current.jsonl,
  // tools.jsonl, tool_outputs/ nor the model.
  it('a command that reads /proc/$PPID/environ finds no key; one that prints a .env holding it does not bring it into the context', async () => {
    const KEY = `sk-cwb-${crypto.randomBytes(16).toString('hex')}`;
    const llm = await startScriptedLlm({
      flavor: 'openai',
      requireKey: KEY,
      script: [
        {
          tool_calls: [
            {
              name: 'run_command',
              arguments: { command: "tr '\\0' '\\n' < /proc/$PPID/environ | grep -c OPENAI" },
            },
            {
              // Over 50 KiB with the key at the end: shortened for the model, saved whole under tool_outputs/.
              name: 'run_command',
              arguments: { command: 'seq 1 20000; cat .env' },
            },
          ],
        },
        { content: 'Done.' },
        { content: 'Summary.' },
      ],
    });
    servers.push(llm);
    const base = tempDir();
    const env = makeTaskEnv(base, {
      provider: 'openai',
      url: llm.url,
      extraYaml: 'tools:\n  run_command: true\n',
    });
    fs.writeFileSync(path.join(env.workdir, '.env'), `OPENAI_API_KEY=${KEY}\n`);
    const run = await waitForExit(
      spawnCwb(
        [
          '--contexts',
          env.root,
          '--config',
          env.configFile,
          'run',
          '--prompt',
          'Show the environment',
          '--workdir',
          env.workdir,
          '--json',
        ],
        { OPENAI_API_KEY: KEY },
      ),
    );
    const result = JSON.parse(run.stdout) as { uuid: string; status: string };
    expect(result).toMatchObject({ status: 'completed' });
    expect(await findKey(KEY, [env.root], {})).toEqual([]);
    // The command did read the key (scrubbed, not missing), and the model never saw it.
    const afterTools = llm.chatRequests()[1]!.body as { messages: { content: string }[] };
    expect(afterTools.messages.at(-2)!.content).toMatch(/^0\nexit code 1$/);
    expect(JSON.stringify(afterTools)).toContain('OPENAI_API_KEY=***');
    expect(JSON.stringify(afterTools)).not.toContain(KEY);
    const outputs = path.join(env.root, 'completed', result.uuid, 'tool_outputs');
    expect(fs.readdirSync(outputs).length).toBeGreaterThan(0);
  }, 60_000);
});
