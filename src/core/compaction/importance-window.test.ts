import { describe, expect, it } from 'vitest';
import { ToolOutputStore } from '../store/tool-output-store';
import { useTempDir } from '../../../test/support/temp-dir';
import { SNAPSHOT_HEADER, parseSnapshot } from './context-snapshot';
import { LEDGER_HEADING, splitLedger } from '../facts/fact-ledger-text';
import {
  IMPORTANCE_WINDOW_DEFAULTS,
  importanceWindow,
  type ImportanceWindowParams,
} from './importance-window';
import type { ContextStats, StrategyResult } from './strategy';
import { ViewBuilder, makeRecord, pairProblems, strategyContext } from './test-support/records';
import { entryFromRecord, entrySeq, type ViewEntry } from './view';

const tempDir = useTempDir('cwb-window-');

function params(overrides: Partial<ImportanceWindowParams> = {}): ImportanceWindowParams {
  return { ...IMPORTANCE_WINDOW_DEFAULTS, ...overrides };
}

function applied(result: StrategyResult): Extract<StrategyResult, { applied: true }> {
  if (!result.applied) throw new Error(`not applied: ${result.reason}`);
  return result;
}

async function run(view: readonly ViewEntry[], p = params(), dryRun = false) {
  return importanceWindow.run(strategyContext(view, new ToolOutputStore(tempDir()), { dryRun }), p);
}

const contents = (view: readonly ViewEntry[]) => view.map((e) => e.message.content);

/**
 * system, goal, 20 read_file pairs (pair 4 fails, pair 7 is an update_plan, pair 10 a UI
 * dump), an answer, a user follow-up, 5 more pairs: 53 messages besides the system prompt.
 */
function history(): ViewBuilder {
  const b = new ViewBuilder();
  b.system('You are a coding agent.');
  b.user('Make the build pass.');
  for (let i = 0; i < 20; i++) {
    if (i === 4)
      b.call('read_file', { path: 'missing.ts' }, 'Error: ENOENT: no such file missing.ts');
    else if (i === 7)
      b.call('update_plan', { plan: '1. fix\n2. test' }, 'plan saved (entry 1, initial)');
    else if (i === 10) b.call('webElements', {}, '[{"role":"link"}]');
    else b.call('read_file', { path: `f${i}.ts` }, `contents of f${i}`);
  }
  b.assistant('Summary so far: f4 is missing, the rest compiles.');
  b.user('continue');
  for (let i = 20; i < 25; i++) b.call('read_file', { path: `f${i}.ts` }, `contents of f${i}`);
  return b;
}

describe('importanceWindow.needed', () => {
  it('is true when the context has more messages than the window', () => {
    const stats = (messageCount: number): ContextStats => ({
      currentTokens: 100,
      lastUsageTokens: undefined,
      messageCount,
      contextWindow: 128_000,
      maxOutputTokens: 4096,
    });
    expect(importanceWindow.needed(stats(24), params())).toBe(false);
    expect(importanceWindow.needed(stats(25), params())).toBe(true);
    expect(importanceWindow.needed(stats(13), params({ max_messages: 12 }))).toBe(true);
  });
});

describe('importanceWindow.run', () => {
  it('keeps the system prompt, the recent 40 %, the most important older messages, in time order, with a snapshot', async () => {
    const b = history();
    const result = applied(await run(b.entries));
    const view = result.view;
    expect(view).toHaveLength(24);
    expect(view[0]).toBe(b.entries[0]);
    const snapshot = view[1]!;
    expect(snapshot.create).toBe('summary');
    expect(snapshot.message.role).toBe('user');
    expect(snapshot.message.content!.startsWith(SNAPSHOT_HEADER)).toBe(true);
    expect(snapshot.item).toEqual({ inline: snapshot.message });

    const kept = view.slice(2);
    // every other entry is one of the view's own, unchanged
    for (const e of kept) expect(b.entries).toContain(e);
    const seqs = kept.map((e) => entrySeq(e)!);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(pairProblems(view)).toEqual([]);

    // the newest ceil(24 × 0.4) = 10 messages
    for (const e of b.entries.slice(-10)) expect(kept).toContain(e);
    const older = contents(kept.slice(0, -10));
    // answer and error (0.8), plan (0.7), then the newest ordinary ones (0.5, newer first)
    expect(older).toEqual([
      null,
      'Error: ENOENT: no such file missing.ts',
      null,
      'plan saved (entry 1, initial)',
      null,
      'contents of f17',
      null,
      'contents of f18',
      null,
      'contents of f19',
      'Summary so far: f4 is missing, the rest compiles.',
      'continue',
    ]);
    // the goal and the UI dump (0.4) left, but the snapshot keeps the goal
    expect(contents(kept)).not.toContain('Make the build pass.');
    expect(contents(kept)).not.toContain('[{"role":"link"}]');
    const s = parseSnapshot(snapshot.message.content!)!;
    expect(s.goal).toBe('Make the build pass.');
    expect(s.currentPhase).toBe('executing');
    expect(s.earlierActionCount + s.completedActions.length).toBe(25);
    expect(s.keyObservations[0]).toBe('read_file → Error: ENOENT: no such file missing.ts');

    expect(result.summary).toMatch(
      /^Kept 22 of 53 messages \(10 recent, 12 older by importance\); dropped 31 \([\d,]+ → [\d,]+ tokens\); added a context snapshot\.$/,
    );
  });

  it('plans the same in a dry run', async () => {
    const b = history();
    const real = applied(await run(b.entries));
    const dry = applied(await run(b.entries, params(), true));
    expect(dry.view).toEqual(real.view);
    expect(dry.summary).toBe(real.summary);
  });

  it('moves the recent cut back so a call keeps all its results', async () => {
    const b = new ViewBuilder();
    b.system('sys');
    b.user('go');
    for (let i = 0; i < 12; i++) b.call('read_file', { path: `f${i}` }, `r${i}`);
    // three results at once: the newest 4 (window 10 × 0.4) would start at a result
    b.parallel([
      { name: 'a', result: 'ra' },
      { name: 'b', result: 'rb' },
      { name: 'c', result: 'rc' },
    ]);
    b.assistant('finished');
    const result = applied(await run(b.entries, params({ max_messages: 10 })));
    const kept = result.view.slice(2);
    expect(contents(kept).slice(-5)).toEqual([null, 'ra', 'rb', 'rc', 'finished']);
    expect(pairProblems(result.view)).toEqual([]);
    expect(result.view.length).toBeLessThanOrEqual(10);
    // 8 places: 5 recent, the newest pair (ties go to the newer), then only a single fits
    expect(contents(kept)).toEqual(['go', null, 'r11', null, 'ra', 'rb', 'rc', 'finished']);
  });

  it('prefers newer messages among equally important ones', async () => {
    const b = new ViewBuilder();
    b.system('sys');
    for (let i = 0; i < 10; i++) b.user(`note ${i}`);
    const result = applied(await run(b.entries, params({ max_messages: 6, recent_ratio: 0.5 })));
    // 4 places: the newest 3, then the newest older one
    expect(contents(result.view.slice(2))).toEqual(['note 6', 'note 7', 'note 8', 'note 9']);
  });

  it('keeps a call and its results together or drops them together', async () => {
    const b = new ViewBuilder();
    b.system('sys');
    b.user('go');
    // an important parallel call (one result failed) that does not fit beside the recent part
    b.parallel([
      { name: 'x', result: 'ok' },
      { name: 'y', result: 'Error: boom' },
      { name: 'z', result: 'ok' },
    ]);
    for (let i = 0; i < 6; i++) b.user(`u${i}`);
    const tight = applied(await run(b.entries, params({ max_messages: 6, recent_ratio: 0.5 })));
    expect(pairProblems(tight.view)).toEqual([]);
    expect(contents(tight.view)).not.toContain('Error: boom');
    const roomy = applied(await run(b.entries, params({ max_messages: 9, recent_ratio: 0.3 })));
    expect(pairProblems(roomy.view)).toEqual([]);
    expect(contents(roomy.view)).toContain('Error: boom');
  });

  it('shows large JSON tool outputs pruned without touching the stored message', async () => {
    const ui = JSON.stringify({
      elements: Array.from({ length: 300 }, (_, i) => ({
        role: 'AXButton',
        title: `Submit ${i}`,
        description: 'Click this button to submit the form',
        help: 'Press enter to activate',
        position: { x: 100, y: 200 },
        children: Array.from({ length: 50 }, (_, j) => ({ role: 'AXStaticText', title: `c${j}` })),
      })),
    });
    const small = JSON.stringify({ description: 'small outputs stay as they are' });
    const b = new ViewBuilder();
    b.system('sys');
    b.user('click submit');
    b.call('elementsJson', {}, small);
    b.call('elementsJson', {}, ui, { output_ref: 'out_0123456789ab' });
    b.assistant('clicked');
    const result = applied(await run(b.entries));
    const tools = result.view.filter((e) => e.message.role === 'tool');
    expect(tools[0]).toBe(b.entries[3]);
    const pruned = tools[1]!;
    expect(pruned.record!.content).toBe(ui);
    expect(pruned.item).toEqual({ seq: 6, content: pruned.message.content });
    const [json, note] = pruned.message.content!.split('\n');
    const value = JSON.parse(json!) as { elements: { children: unknown[] }[] };
    expect(value.elements).toHaveLength(200);
    expect(value.elements[0]!.children).toHaveLength(20);
    expect(json).not.toContain('"description"');
    expect(json).not.toContain('"help"');
    expect(note).toContain('full output: ref=out_0123456789ab');
    expect(pruned.tokens).toBeLessThan(b.entries[5]!.tokens / 2);
    // within the window, nothing else happens: no snapshot
    expect(result.view).toHaveLength(b.entries.length);
    expect(result.summary).toMatch(
      /^Pruned 1 JSON output \([\d,]+ → [\d,]+ tokens\); no message left the context\.$/,
    );
    // pruned once is pruned: a second run has nothing to do
    const again = await run(result.view);
    expect(again.applied).toBe(false);
  });

  it('keeps the summary of an earlier compaction before any other older message', async () => {
    const b = new ViewBuilder();
    b.system('sys');
    b.add({
      role: 'assistant',
      content: 'Summary of the first hour: ...',
      kind: 'summary',
      compaction_id: 1,
    });
    for (let i = 0; i < 10; i++) b.assistant(`answer ${i}`);
    const result = applied(await run(b.entries, params({ max_messages: 6, recent_ratio: 0.5 })));
    expect(contents(result.view.slice(2))).toEqual([
      'Summary of the first hour: ...',
      'answer 7',
      'answer 8',
      'answer 9',
    ]);
  });

  it('lists the facts of the messages it drops in a ledger under the snapshot', async () => {
    const result = applied(await run(history().entries, params({ max_messages: 12 })));
    const snapshot = result.view.find((e) => e.create === 'summary')!.message.content!;
    const { ledger } = splitLedger(snapshot);
    // Dropped reads the snapshot's action list does not name are in the ledger; the
    // snapshot still parses as one.
    expect(ledger.map((f) => f.text)).toEqual(expect.arrayContaining(['f16.ts']));
    expect(splitLedger(snapshot).body).not.toContain('f16.ts');
    expect(parseSnapshot(snapshot)?.goal).toBe('Make the build pass.');
    const off = applied(
      await run(
        history().entries,
        params({ max_messages: 12, fact_ledger: { max_tokens: 0, share: 0.06 } }),
      ),
    );
    expect(off.view.find((e) => e.create === 'summary')!.message.content).not.toContain(
      LEDGER_HEADING,
    );
  });

  it('declines when the context fits and nothing needs pruning', async () => {
    const b = new ViewBuilder();
    b.system('sys');
    b.user('hi');
    b.assistant('hello');
    expect(await run(b.entries)).toEqual({
      applied: false,
      reason:
        'The context has 3 messages, within the window of 24, and no large JSON output to prune.',
    });
  });

  it('replaces its earlier snapshot and continues it on the next run', async () => {
    const b = history();
    const first = applied(await run(b.entries));
    // the engine stores the snapshot: it gets the next seq and comes back as a stored record
    const stored = entryFromRecord(
      makeRecord(100, {
        role: 'user',
        content: first.view[1]!.message.content,
        kind: 'summary',
        compaction_id: 1,
      }),
    );
    const next = new ViewBuilder();
    const later = [...first.view.slice(0, 1), stored, ...first.view.slice(2)];
    for (let i = 0; i < 3; i++) {
      const call = next.call(
        'run_command',
        { command: `make ${i}` },
        i === 2 ? 'exit code 2' : 'ok',
      );
      later.push(
        entryFromRecord({ ...call.call.record!, seq: 101 + 2 * i }),
        entryFromRecord({ ...call.result.record!, seq: 102 + 2 * i }),
      );
    }
    const second = applied(await run(later));
    const snapshots = second.view.filter((e) =>
      (e.message.content ?? '').startsWith(SNAPSHOT_HEADER),
    );
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]!.create).toBe('summary');
    const s = parseSnapshot(snapshots[0]!.message.content!)!;
    expect(s.goal).toBe('Make the build pass.');
    expect(s.earlierActionCount + s.completedActions.length).toBe(28);
    expect(s.completedActions.at(-1)).toBe('run_command(command="make 2") → error');
    expect(second.view.length).toBeLessThanOrEqual(24);
    expect(pairProblems(second.view)).toEqual([]);
  });
});
