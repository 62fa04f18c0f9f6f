import fs from 'node:fs';
import path from 'node:path';
import { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { answerTaskIndexRequest, serveTaskIndex } from './task-index-server';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();
const OWN = '5d6f0a3c-7a51-4c1e-9f0b-2c7e8d9a1b34';
const OTHER = '9b1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
const stores: ContextStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function server() {
  const store = ContextStore.open(path.join(tempDir(), 'contexts'), { recover: false });
  stores.push(store);
  const options = { uuid: OWN, processId: 4242, store: () => store };
  return {
    store,
    ask: (request: unknown) => answerTaskIndexRequest(JSON.stringify(request), options),
  };
}

describe('answerTaskIndexRequest', () => {
  it('creates, counts, reads and ends its own task in the host store, owned by the process', () => {
    const { store, ask } = server();
    const created = ask({
      op: 'createTaskFolder',
      input: { uuid: OWN, title: 'Fix it', prompt: 'fix' },
    });
    expect(created).toEqual({ ok: true, value: path.join(store.root, 'running', OWN) });
    expect(fs.existsSync(path.join(store.root, 'running', OWN, 'metadata.json'))).toBe(true);
    expect(ask({ op: 'addStats', uuid: OWN, inc: { llm_calls: 1, messages: 3 } })).toEqual({
      ok: true,
    });
    expect(ask({ op: 'get', uuid: OWN })).toMatchObject({
      ok: true,
      value: {
        uuid: OWN,
        status: 'running',
        process_id: 4242,
        llm_call_count: 1,
        total_messages: 3,
      },
    });
    store.repo.requestControl(OWN, 'pause');
    expect(ask({ op: 'takeControl', uuid: OWN })).toEqual({ ok: true, value: 'pause' });
    expect(ask({ op: 'takeControl', uuid: OWN })).toEqual({ ok: true, value: null });
    const moved = ask({
      op: 'moveTaskFolder',
      uuid: OWN,
      status: 'paused',
      extra: {
        stats: {
          total_messages: 3,
          total_summaries: 0,
          total_tool_calls: 0,
          final_token_count: 10,
          final_message_count: 3,
        },
      },
    });
    expect(moved).toEqual({ ok: true, value: path.join(store.root, 'paused', OWN) });
    expect(store.requireTask(OWN)).toMatchObject({ status: 'paused', final_token_count: 10 });
    expect(ask({ op: 'claimTaskFolder', uuid: OWN })).toEqual({
      ok: true,
      value: path.join(store.root, 'running', OWN),
    });
    expect(ask({ op: 'get', uuid: OTHER })).toEqual({ ok: true, value: null });
  });

  it("refuses to change another task, and passes the store's errors on with their code", () => {
    const { store, ask } = server();
    store.createTask({ uuid: OTHER, prompt: 'someone else' }).close();
    expect(ask({ op: 'addStats', uuid: OTHER, inc: { messages: 1 } })).toEqual({
      ok: false,
      code: 'conflict',
      message: `the process of task ${OWN} asked to change task ${OTHER}, which is not its own`,
    });
    expect(store.requireTask(OTHER).total_messages).toBe(0);
    expect(ask({ op: 'claimTaskFolder', uuid: OWN })).toMatchObject({
      ok: false,
      code: 'not_found',
    });
    ask({ op: 'createTaskFolder', input: { uuid: OWN } });
    expect(ask({ op: 'createTaskFolder', input: { uuid: OWN } })).toMatchObject({
      ok: false,
      code: 'conflict',
      message: `a task with id ${OWN} exists already`,
    });
  });

  it('answers a malformed request with what is wrong and where, and changes nothing', () => {
    const { store, ask } = server();
    expect(
      answerTaskIndexRequest('{"op":', { uuid: OWN, processId: 1, store: () => store }),
    ).toMatchObject({
      ok: false,
      code: 'bad_input',
      message: expect.stringMatching(/^index request of the process of task .+: .*JSON/) as string,
    });
    expect(ask({ op: 'addStats', uuid: OWN, inc: { messages: -1 } })).toMatchObject({
      ok: false,
      code: 'bad_input',
      message: expect.stringContaining('inc.messages') as string,
    });
    expect(ask({ op: 'dropTable', uuid: OWN })).toMatchObject({ ok: false, code: 'bad_input' });
    expect(
      ask({ op: 'createTaskFolder', input: { uuid: OWN, status: 'completed' } }),
    ).toMatchObject({
      ok: false,
      code: 'bad_input',
    });
    expect(store.repo.get(OWN)).toBeUndefined();
  });
});

describe('serveTaskIndex', () => {
  it('answers each line in order, also when a request arrives in pieces', async () => {
    const { store } = server();
    let replies = '';
    const pipe = new Duplex({
      read: () => undefined,
      write: (chunk: Buffer, _encoding, done) => {
        replies += chunk.toString('utf8');
        done();
      },
    });
    serveTaskIndex(pipe, { uuid: OWN, processId: 7, store: () => store });
    const create = Buffer.from(
      JSON.stringify({ op: 'createTaskFolder', input: { uuid: OWN, title: 'é…' } }),
    );
    // Cut inside 'é': the server must not decode half a character.
    const cut = create.indexOf(0xc3) + 1;
    pipe.push(create.subarray(0, cut));
    pipe.push(Buffer.concat([create.subarray(cut), Buffer.from('\n{"op":"get","uuid":"')]));
    pipe.push(`${OWN}"}\n`);
    await new Promise((r) => setImmediate(r));
    const lines = replies.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual({
      ok: true,
      value: path.join(store.root, 'running', OWN),
    });
    expect(JSON.parse(lines[1]!)).toMatchObject({
      ok: true,
      value: { title: 'é…', process_id: 7 },
    });
  });
});
