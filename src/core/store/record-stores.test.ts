import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SummaryStore } from './summary-store';
import { ToolStore, toolLine } from './tool-store';
import { jsonOfText } from '../jsonl/json-text-memo';
import { PlanningStore } from './planning-store';
import { ToolOutputStore } from './tool-output-store';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

describe('SummaryStore', () => {
  it('writes the fields of both seeds and numbers records across reopen', () => {
    const dir = tempDir();
    const store = new SummaryStore(dir);
    const first = store.add({
      strategy: 'summarize',
      start_seq: 10,
      end_seq: 50,
      summary: 'Fixed auth bug',
      original_tokens: 12000,
      summary_tokens: 800,
      compressed_message_count: 41,
    });
    expect(first).toMatchObject({
      id: 1,
      start_seq: 10,
      end_seq: 50,
      ratio: 0.067,
      tokens_saved: 11200,
      compressed_message_count: 41,
    });
    expect(first.timestamp).toBe(first.created_at);
    store.close();
    const reopened = new SummaryStore(dir);
    expect(
      reopened.add({
        strategy: 'truncate',
        start_seq: 51,
        end_seq: 60,
        summary: '',
        original_tokens: 0,
        summary_tokens: 0,
        compressed_message_count: 10,
        extra: { marker: true },
      }),
    ).toMatchObject({ id: 2, ratio: 0, marker: true });
    expect(reopened.count()).toBe(2);
    expect(reopened.latest()?.id).toBe(2);
    reopened.close();
  });
});

describe('ToolStore', () => {
  it('writes each record as JSON.stringify would, its arguments encoded once', () => {
    const dir = tempDir();
    const store = new ToolStore(dir);
    const done = {
      status: 'success' as const,
      duration_ms: 12,
      timestamp: '2026-11-28T00:00:00.000Z',
    };
    const written = [
      store.add({
        ...done,
        tool: 'Write',
        args: { path: 'a.ts', content: 'l\n"q" こんにちは' },
        result: 'ok',
      }),
      store.add({ ...done, tool: 'Read', args: undefined, result: null, result_seq: 9 }),
      store.add({ ...done, tool: 'ls', args: ['x', 1, null], result: '', tool_call_id: 'call_1' }),
      store.add({
        ...done,
        tool: 'sh',
        args: 'plain',
        result: null,
        status: 'error',
        error: 'boom',
      }),
    ];
    // An output encoded just before as its message's content (the JSON remembered), one
    // after another text was, and one whose message comes next (the JSON remembered for it).
    const output = 'line 1\n"quoted" \u2028 ünï — 日本';
    jsonOfText(output);
    written.push(store.add({ ...done, tool: 'Bash', args: { cmd: 'x' }, result: output }));
    jsonOfText('another text');
    written.push(store.add({ ...done, tool: 'Bash', args: { cmd: 'y' }, result: output }));
    expect(jsonOfText(output)).toBe(JSON.stringify(output));
    store.close();
    const lines = fs.readFileSync(path.join(dir, 'tools.jsonl'), 'utf8').split('\n');
    expect(lines.slice(0, -1)).toEqual(written.map((record) => JSON.stringify(record)));
    expect(lines.slice(0, -1)).toEqual(written.map((record) => toolLine(record).join('')));
    expect(JSON.parse(lines[0]!)).toMatchObject({
      args: { path: 'a.ts' },
      arguments: { path: 'a.ts' },
    });
  });

  it('records tool executions with seed 000 and seed 001 names', () => {
    const store = new ToolStore(tempDir());
    store.add({
      tool: 'read_file',
      args: { path: 'a.ts' },
      result: 'x',
      status: 'success',
      duration_ms: 12.6,
    });
    const second = store.add({
      tool: 'run_command',
      args: { command: 'false' },
      result: null,
      status: 'error',
      error: 'exit 1',
      duration_ms: 3,
      tool_call_id: 'call_9',
    });
    expect(second).toMatchObject({
      seq: 2,
      tool: 'run_command',
      tool_name: 'run_command',
      args: { command: 'false' },
      arguments: { command: 'false' },
      status: 'error',
      error: 'exit 1',
      tool_call_id: 'call_9',
    });
    expect(store.list().records.map((r) => [r.seq, r.duration_ms])).toEqual([
      [1, 13],
      [2, 3],
    ]);
    store.close();
  });
});

describe('PlanningStore', () => {
  it('appends plan entries and returns the newest ones oldest first', () => {
    const store = new PlanningStore(tempDir());
    for (let i = 1; i <= 5; i++) store.add(i === 1 ? 'initial' : 'update', `plan ${i}`);
    expect(store.last(2).map((p) => p.plan_content)).toEqual(['plan 4', 'plan 5']);
    expect(store.count()).toBe(5);
    store.close();
  });

  it('reports a malformed line with its line number and keeps reading', () => {
    const dir = tempDir();
    const store = new PlanningStore(dir);
    store.add('initial', 'a');
    fs.appendFileSync(path.join(dir, 'planning.jsonl'), 'not json\n');
    store.close();
    const reopened = new PlanningStore(dir);
    expect(reopened.add('update', 'b').id).toBe(3);
    const { records, bad } = reopened.list();
    expect(records.map((r) => r.plan_content)).toEqual(['a', 'b']);
    expect(bad).toEqual([
      { file: 'planning.jsonl', lineNo: 2, error: expect.stringMatching(/malformed JSON/) },
    ]);
    reopened.close();
  });
});

describe('ToolOutputStore', () => {
  it('keeps full outputs behind refs, reads line windows and greps', () => {
    const store = new ToolOutputStore(tempDir());
    const saved = store.save(
      Array.from({ length: 1000 }, (_, i) => `line ${i + 1}${i === 776 ? ' ERROR here' : ''}`).join(
        '\n',
      ),
      'grep',
    );
    expect(saved.ref).toMatch(/^grep_[0-9a-f]{12}$/);
    expect(store.readLines(saved.ref, 10, 3)).toEqual({
      lines: ['line 11', 'line 12', 'line 13'],
      more: true,
    });
    expect(store.grep(saved.ref, 'ERROR')).toEqual([{ lineNo: 777, text: 'line 777 ERROR here' }]);
    expect(() => store.readLines('../../etc/passwd')).toThrow(/is not a tool output ref/);
    expect(() => store.readLines('missing_ref')).toThrow(/no tool output/);
    expect(() => store.grep(saved.ref, '(')).toThrow(/invalid pattern/);
  });
});
