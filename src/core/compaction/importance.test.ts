import { describe, expect, it } from 'vitest';
import { importanceScore, importanceSignals, readsAsError } from './importance';
import { ViewBuilder, toolCall, type RecordInput } from './test-support/records';

function entry(input: RecordInput) {
  return new ViewBuilder().add(input);
}

const tool = (content: string, tool_name = 'run_command') =>
  entry({ role: 'tool', content, tool_call_id: 'c1', tool_name });

describe('importanceScore', () => {
  it('starts at 0.5 for an ordinary message', () => {
    expect(importanceScore(entry({ role: 'user', content: 'Please fix the login bug.' }))).toBe(
      0.5,
    );
    expect(importanceScore(tool('src/a.ts\nsrc/b.ts\nexit code 0'))).toBe(0.5);
    expect(
      importanceScore(
        entry({
          role: 'assistant',
          content: null,
          tool_calls: [toolCall('c1', 'read_file', { path: 'a.ts' })],
        }),
      ),
    ).toBe(0.5);
  });

  it('adds 0.3 for errors', () => {
    for (const text of [
      'Error: not enough seats on flight HAT229',
      'error: could not compile `app`',
      'error[E0308]: mismatched types',
      "TypeError: Cannot read properties of undefined (reading 'x')",
      'Traceback (most recent call last):\n  File "a.py", line 1',
      'java.lang.NullPointerException\n\tat Main.main(Main.java:3)',
      'npm test\n...\nexit code 1',
      'process exited with code 137',
      'FAILED tests/test_login.py::test_redirect',
      'killed by timeout after 120000 ms',
    ]) {
      expect(importanceScore(tool(text)), text).toBe(0.8);
    }
  });

  it('does not take passing output for an error', () => {
    for (const text of [
      'Tests  12 passed, 0 failed',
      'exit code 0',
      'no errors found',
      '{"error_count": 0}',
    ]) {
      expect(importanceSignals(tool(text)).has('error'), text).toBe(false);
    }
  });

  it('adds 0.3 for completion: an answer without tool calls, a done action, "task complete"', () => {
    expect(
      importanceScore(
        entry({ role: 'assistant', content: 'The bug is fixed: the token now refreshes.' }),
      ),
    ).toBe(0.8);
    expect(
      importanceScore(
        entry({ role: 'assistant', content: null, tool_calls: [toolCall('c', 'done', {})] }),
      ),
    ).toBe(0.8);
    expect(importanceScore(entry({ role: 'user', content: 'Task complete, thanks!' }))).toBe(0.8);
    expect(importanceScore(entry({ role: 'user', content: 'done' }))).toBe(0.8);
    // an empty assistant message is no answer
    expect(importanceScore(entry({ role: 'assistant', content: '' }))).toBe(0.5);
  });

  it('adds 0.2 for planning: update_plan / think calls and results, and text that lays out a plan', () => {
    expect(
      importanceScore(
        entry({
          role: 'assistant',
          content: null,
          tool_calls: [toolCall('c', 'update_plan', { plan: '1. x' })],
        }),
      ),
    ).toBe(0.7);
    expect(importanceScore(tool('plan saved (entry 1, initial)', 'update_plan'))).toBe(0.7);
    expect(importanceScore(tool('', 'think'))).toBe(0.7);
    expect(
      importanceScore(
        entry({ role: 'user', content: "Here's the plan: migrate the schema, then the API." }),
      ),
    ).toBe(0.7);
    expect(importanceScore(entry({ role: 'user', content: 'Steps:\n1. read\n2. write' }))).toBe(
      0.7,
    );
    expect(
      importanceScore(
        entry({ role: 'user', content: 'Do this:\n1. Read the config\n2. Then the parser step' }),
      ),
    ).toBe(0.7);
    // TODO comments in a tool output are not a plan
    expect(importanceSignals(tool('# TODO: handle errors\nx = 1')).has('planning')).toBe(false);
  });

  it('adds 0.1 for images and screenshots', () => {
    expect(importanceScore(tool('data:image/png;base64,iVBORw0KGgo='))).toBe(0.6);
    expect(importanceScore(tool('saved', 'take_screenshot'))).toBe(0.6);
    expect(
      importanceScore(entry({ role: 'user', content: 'See the screenshot I attached.' })),
    ).toBe(0.6);
  });

  it('subtracts 0.1 for re-fetchable UI and DOM dumps', () => {
    expect(importanceScore(tool('{"elements": []}', 'elementsJson'))).toBe(0.4);
    expect(importanceScore(tool('[]', 'webElements'))).toBe(0.4);
    expect(importanceScore(tool('{"role": "AXWindow", "title": "Safari"}', 'osa'))).toBe(0.4);
    expect(importanceScore(tool('- button "Submit" [ref=e12]', 'browser'))).toBe(0.4);
    expect(importanceScore(tool('<!DOCTYPE html><html><body></body></html>', 'fetch'))).toBe(0.4);
    const tree = JSON.stringify(Array.from({ length: 12 }, () => ({ children: [] })));
    expect(importanceScore(tool(tree, 'query'))).toBe(0.4);
    // only tool results are dumps: a user quoting HTML is not
    expect(
      importanceSignals(entry({ role: 'user', content: '<html> is broken' })).has('uiDump'),
    ).toBe(false);
  });

  it('adds signals up and clamps to [0, 1]', () => {
    const all = entry({
      role: 'assistant',
      content: 'Here is my plan. The screenshot shows TypeError: x is undefined. Task complete.',
    });
    expect(importanceSignals(all)).toEqual(new Set(['error', 'completion', 'planning', 'image']));
    expect(importanceScore(all)).toBe(1);
    expect(importanceScore(tool('Error: page changed\n<html>', 'webElements'))).toBe(0.7);
  });

  it('gives system messages no signals', () => {
    expect(
      importanceSignals(entry({ role: 'system', content: 'Error: the plan is done' })).size,
    ).toBe(0);
  });

  it('reads only the start and end of a huge output', () => {
    const huge = `${'x'.repeat(2_000_000)}\nError: disk full`;
    expect(readsAsError(huge)).toBe(true);
    const middle = `${'x'.repeat(100_000)}\nError: hidden\n${'x'.repeat(100_000)}`;
    expect(readsAsError(middle)).toBe(false);
  });
});
