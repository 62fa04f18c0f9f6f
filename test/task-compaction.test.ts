import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskSupervisor } from '../src/core/supervisor/task-supervisor';
import { nodeForkWorker } from '../src/core/supervisor/node-fork';
import { BUILT_WORKER } from './support/run-ts';
import { ContextStore } from '../src/core/store/context-store';
import { allRecords } from '../src/core/compaction/compaction-record';
import { toProviderMessage } from '../src/core/llm';
import type { WorkerEvent } from '../src/shared/worker-protocol';
import {
  startScriptedLlm,
  type ScriptedLlm,
  type RecordedRequest,
} from './support/scripted-llm-server';
import { makeTaskEnv, readCurrent } from './support/task-env';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();
const servers: ScriptedLlm[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

type Body = { messages: { role: string; content: string }[]; tools?: unknown[] };
const isSummaryCall = (r: RecordedRequest): boolean => !(r.body as Body).tools;

describe('compaction inside a running task', () => {
  it('summarizes automatically when the context passes the threshold; the next request is the compacted current.jsonl', async () => {
    const base = tempDir();
    let uuid = '';
    let root = '';
    let agentCalls = 0;
    let summaries = 0;
    const mismatches: string[] = [];
    const llm = await startScriptedLlm({
      flavor: 'ollama',
      script: (request) => {
        if (isSummaryCall(request)) {
          const messages = (request.body as Body).messages;
          if (messages[0]!.content.includes('final summary')) return { content: 'FINAL' };
          summaries++;
          return { content: `SUMMARY ${summaries}` };
        }
        const expected = readCurrent(root, uuid).map((m) => toProviderMessage('ollama', m));
        if (JSON.stringify((request.body as Body).messages) !== JSON.stringify(expected))
          mismatches.push(`agent call ${agentCalls}`);
        agentCalls++;
        if (agentCalls <= 3)
          return { tool_calls: [{ name: 'read_file', arguments: { path: `f${agentCalls}.txt` } }] };
        return { content: 'All three read.' };
      },
    });
    servers.push(llm);
    const env = makeTaskEnv(base, {
      provider: 'ollama',
      url: llm.url,
      model: 'qwen3:8b',
      extraYaml:
        'context_storage:\n  compression_threshold: 0.5\n  keep_recent_messages: 2\n  min_messages_to_summarize: 2\ncompaction:\n  pipeline: [summarize]\n',
    });
    root = env.root;
    // context_length 32768 in the config, threshold 0.5: three reads of ~7,000 tokens each pass it
    for (let i = 1; i <= 3; i++)
      fs.writeFileSync(`${env.workdir}/f${i}.txt`, `line of file ${i}\n`.repeat(1800));
    const supervisor = new TaskSupervisor({
      fork: nodeForkWorker(BUILT_WORKER),
      contextsRoot: env.root,
      configFile: env.configFile,
    });
    const events: WorkerEvent[] = [];
    supervisor.on('event', (e) => events.push(e));
    uuid = supervisor.start({
      prompt: 'Read the three files f1.txt, f2.txt and f3.txt',
      workdir: env.workdir,
    });
    const exit = await supervisor.waitForExit(uuid);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(exit).toMatchObject({ status: 'completed' });

    expect(mismatches).toEqual([]);
    const records = allRecords(`${env.root}/completed/${uuid}`);
    expect(records.length).toBeGreaterThanOrEqual(1);
    expect(records[0]).toMatchObject({ strategy: 'summarize', undone: false });
    // The model's summary, then what it did not state (the span's facts), in one call.
    expect(records[0]!.summary).toMatch(/^SUMMARY 1\n\n## Fact ledger\n/);
    expect(records).toHaveLength(summaries);
    expect(records[0]!.tokens_after).toBeLessThan(records[0]!.tokens_before);
    const ctx = readCurrent(env.root, uuid);
    expect(ctx[0]!.role).toBe('system');
    expect(ctx[1]).toMatchObject({ role: 'assistant' });
    expect(ctx[1]!.content).toMatch(new RegExp(`^SUMMARY ${summaries}\\n\\n## Fact ledger\\n`));
    expect(events.some((e) => e.type === 'compaction-finished')).toBe(true);
    const store = ContextStore.open(env.root);
    expect(store.requireTask(uuid).compression_count).toBe(records.length);
    // the whole history is still there
    expect(
      store
        .readTask(uuid)
        .messages(1, 100)
        .messages.filter((m) => m.role === 'tool'),
    ).toHaveLength(3);
    store.close();
  });

  it('a context-length error forces a compaction and one retry', async () => {
    const base = tempDir();
    let agentCalls = 0;
    const llm = await startScriptedLlm({
      flavor: 'openai',
      script: (request) => {
        if (isSummaryCall(request)) return { content: 'SHORT SUMMARY' };
        agentCalls++;
        if (agentCalls === 1)
          return { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] };
        if (agentCalls === 2)
          return { tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] };
        if (agentCalls === 3)
          return {
            status: 400,
            error: {
              message: "This model's maximum context length is 128000 tokens.",
              code: 'context_length_exceeded',
            },
          };
        return { content: 'done after compaction' };
      },
    });
    servers.push(llm);
    const env = makeTaskEnv(base, {
      provider: 'openai',
      url: llm.url,
      extraYaml:
        'context_storage:\n  keep_recent_messages: 1\n  min_messages_to_summarize: 1\ncompaction:\n  pipeline: [summarize]\n',
    });
    const supervisor = new TaskSupervisor({
      fork: nodeForkWorker(BUILT_WORKER),
      contextsRoot: env.root,
      configFile: env.configFile,
      env: { ...process.env, OPENAI_API_KEY: 'sk-x' },
    });
    const uuid = supervisor.start({ prompt: 'Look around', workdir: env.workdir });
    expect(await supervisor.waitForExit(uuid)).toMatchObject({ status: 'completed' });
    const chats = llm.chatRequests().filter((r) => !isSummaryCall(r));
    expect(chats).toHaveLength(4);
    const retried = (chats[3]!.body as Body).messages;
    expect(retried.some((m) => m.content?.startsWith('SHORT SUMMARY'))).toBe(true);
    expect(retried.length).toBeLessThan((chats[2]!.body as Body).messages.length);
  });
});
