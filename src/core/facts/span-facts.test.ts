/**
 * The fact extractor on real transcripts of other agents (test/fixtures/real), imported as a
 * user would import them. The expectations were checked by hand against the files: what
 * each session's agent ran, wrote and saw fail, and what must not count (a demonstration of
 * another task, code that names an error, the timestamps of a transcript the agent read).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { importFile } from '../import';
import { ContextStore } from '../store/context-store';
import { readView } from '../compaction/read-view';
import { ViewBuilder } from '../compaction/test-support/synthetic-view';
import { spanMessages } from '../compaction/summary-ledger';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import type { Fact, FactKind } from './fact-types';
import { extractSpanFacts, userWords } from './span-facts';
import { renderLedger } from './fact-ledger-text';

const tempDir = useTempDir('cwb-facts-');

async function factsOf(file: string, task = 0): Promise<Fact[]> {
  const store = ContextStore.open(tempDir());
  try {
    const imported = await importFile(store, file);
    const row = store.requireTask(imported.tasks[task]!.uuid);
    const { view } = readView(store.taskPath(row));
    return extractSpanFacts(spanMessages(view)).list();
  } finally {
    store.close();
  }
}

const texts = (facts: Fact[], kind: FactKind): string[] =>
  facts.filter((f) => f.kind === kind).map((f) => f.text);

describe('a SWE-agent trajectory (pydicom__pydicom-1458)', () => {
  let facts: Fact[];
  beforeAll(async () => {
    facts = await factsOf(realFixture('swe-agent', 'pydicom__pydicom-1458.traj'));
  });

  it('has the commands it ran; file viewer and editor commands are reads and writes', () => {
    expect(texts(facts, 'command')).toEqual([
      'python reproduce_bug.py',
      'rm reproduce_bug.py',
      'submit',
    ]);
  });

  it('has the errors the observations reported', () => {
    expect(texts(facts, 'error')).toEqual([
      'AttributeError: Unable to convert the pixel data as the following required elements are missing from the dataset: PixelRepresentation',
      "E999 SyntaxError: unmatched ']'",
      "E999 SyntaxError: unmatched ')'",
    ]);
    expect(facts.find((f) => f.kind === 'error')?.detail).toBe('python reproduce_bug.py');
  });

  it('marks the files it created and edited as written', () => {
    const written = facts.filter((f) => f.kind === 'path' && f.written).map((f) => f.text);
    expect(written).toEqual([
      'reproduce_bug.py',
      '/pydicom__pydicom/reproduce_bug.py',
      '/pydicom__pydicom/pydicom/pixel_data_handlers/numpy_handler.py',
    ]);
  });

  it('leaves out the demonstration of another task that comes before the request', () => {
    const all = facts.map((f) => f.text).join('\n');
    expect(all).not.toMatch(/marshmallow|TimeDelta|fields\.py/);
    expect(texts(facts, 'instruction')).toHaveLength(1);
    expect(texts(facts, 'instruction')[0]).toMatch(
      /^We're currently solving .*Pixel Representation/,
    );
    expect(texts(facts, 'url')).toContain(
      'http://dicom.nema.org/medical/dicom/current/output/chtml/part03/sect_C.7.6.24.html',
    );
    expect(texts(facts, 'identifier')).toEqual(
      expect.arrayContaining(['PixelRepresentation', 'Dataset.pixel_array', 'FloatPixelData']),
    );
  });
});

describe('a Codex rollout', () => {
  let facts: Fact[];
  beforeAll(async () => {
    facts = await factsOf(
      realFixture(
        'codex',
        'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
      ),
    );
  });

  it('has every shell command with its exit status', () => {
    const commands = facts.filter((f) => f.kind === 'command');
    expect(commands.length).toBe(34);
    expect(commands.every((c) => c.detail === 'exit 0' && c.failed === false)).toBe(true);
    expect(commands[0]!.text).toMatch(/^sed -n '1,220p' \/Users\/Sample_User\/\.codex\/plugins/);
  });

  it('takes no error line or number from files the agent only read (sed, rg, cat)', () => {
    // The session reads React sources full of `toaster.error(…)` and a meeting transcript
    // full of timestamps: none of it happened to the agent.
    expect(texts(facts, 'error')).toEqual([]);
    const numbers = texts(facts, 'number');
    expect(numbers).toEqual(expect.arrayContaining(['8 min', '0.1.0-alpha1']));
    expect(numbers.some((n) => /^\d{2}\.\d{3}$/.test(n))).toBe(false);
  });

  it('has the user’s three requests verbatim and the files the agent opened', () => {
    const instructions = texts(facts, 'instruction');
    expect(instructions).toHaveLength(3);
    expect(instructions[1]).toBe(
      'there is a need for nikita to draft demo scenario around governance, budgetings, analytics',
    );
    expect(texts(facts, 'path')).toContain(
      '/Users/Sample_User/repos/codemie-ai/codemie-ui/src/pages/analytics/AnalyticsPage.tsx',
    );
    expect(texts(facts, 'path')).not.toContain('sliders/steppers/inputs');
  });
});

describe('a Claude Code session', () => {
  let facts: Fact[];
  beforeAll(async () => {
    facts = await factsOf(realFixture('claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'));
  });

  it('has the slash command as the user typed it and the follow-up request', () => {
    const instructions = texts(facts, 'instruction');
    expect(instructions[0]).toBe('/orchestrator create TODO app by Next.js');
    expect(instructions.at(-1)).toBe('Thanks! Please update CLAUDE.md for current changes');
  });

  it('has the file it wrote, and no framework name or prose taken for a path', () => {
    expect(facts.filter((f) => f.kind === 'path' && f.written).map((f) => f.text)).toEqual([
      '/path/to/Demo/CLAUDE.md',
    ]);
    expect(texts(facts, 'path')).not.toContain('Next.js');
    expect(texts(facts, 'path')).not.toContain('All/Active/Completed');
    expect(texts(facts, 'identifier')).toEqual(expect.arrayContaining(['useTodos', 'TodoItem']));
  });

  it('takes no error from a sub-agent’s prose about "error handling"', () => {
    expect(texts(facts, 'error')).toEqual([]);
  });
});

describe('our own agent and edge cases', () => {
  it('counts a failing command, its error lines and the numbers its output ends with', () => {
    const b = new ViewBuilder().user('Fix the failing test in src/date/parse.ts');
    b.tool(
      'run_command',
      { command: 'npm test -- parse' },
      'FAIL src/date/parse.test.ts\n  ✕ accepts week dates (4 ms)\nTypeError: week is not a function\nTests: 1 failed, 11 passed\nexit code 1',
    );
    b.tool(
      'write_file',
      { path: 'src/date/parse.ts', content: 'export const week = () => 1;' },
      'ok',
    );
    b.tool('run_command', { command: 'npm test -- parse' }, 'Tests: 12 passed\nexit code 0');
    const facts = extractSpanFacts(spanMessages(b.build())).list();
    const command = facts.find((f) => f.kind === 'command')!;
    // The last run decides the command's state; it was mentioned twice.
    expect(command).toMatchObject({ text: 'npm test -- parse', detail: 'exit 0', mentions: 2 });
    expect(texts(facts, 'error')).toEqual([
      'FAIL src/date/parse.test.ts',
      'TypeError: week is not a function',
    ]);
    expect(texts(facts, 'number')).toEqual(
      expect.arrayContaining(['1 failed', '11 passed', '12 passed']),
    );
    expect(facts.find((f) => f.text === 'src/date/parse.ts')).toMatchObject({ written: true });
  });

  it('turns domain tool arguments into identifiers (ids an agent acts on)', () => {
    const b = new ViewBuilder().user('Cancel my reservation');
    b.tool('get_reservation_details', { reservation_id: '4WQ150' }, '{"status":"ok"}');
    b.tool('cancel_reservation', { reservation_id: '4WQ150', reason: 'change of plan' }, 'done');
    const facts = extractSpanFacts(spanMessages(b.build())).list();
    expect(texts(facts, 'identifier')).toEqual(['4WQ150']);
  });

  it('carries the facts of an earlier ledger over instead of nesting it', () => {
    const ledger = renderLedger([
      {
        kind: 'command',
        text: 'make build',
        detail: 'exit 2',
        failed: true,
        mentions: 1,
        recency: 0,
      },
      { kind: 'path', text: 'src/old.c', written: true, mentions: 1, recency: 0 },
    ]);
    const b = new ViewBuilder()
      .user(`Summary of earlier work.\n\n${ledger}`)
      .user('Now fix the linker error');
    const facts = extractSpanFacts(spanMessages(b.build())).list();
    expect(facts.find((f) => f.kind === 'command')).toMatchObject({
      text: 'make build',
      detail: 'exit 2',
      failed: true,
    });
    expect(facts.find((f) => f.text === 'src/old.c')).toMatchObject({ written: true });
    // The ledger's own headings are not the user's words.
    expect(texts(facts, 'instruction')).toEqual([
      'Summary of earlier work.',
      'Now fix the linker error',
    ]);
  });

  it('takes the user’s words out of what agents wrap around them', () => {
    expect(
      userWords(
        '<command-message>x</command-message>\n<command-name>/review</command-name>\n<command-args>src/a.ts</command-args>',
      ),
    ).toBe('/review src/a.ts');
    expect(userWords('<command-name>/clear</command-name>')).toBe('');
    expect(
      userWords(
        'Caveat: The messages below were generated by the user while running local commands. DO NOT respond.',
      ),
    ).toBe('');
    expect(userWords('<system-reminder>be nice</system-reminder>\nShip it')).toBe('Ship it');
  });

  it('survives binary, non-UTF-8 and Japanese text, and a huge output, with sensible facts', () => {
    const b = new ViewBuilder().user(
      'ログを確認して src/app/main.ts を直してください。所要時間は 15 min です。',
    );
    b.tool(
      'run_command',
      { command: 'cat /dev/urandom | head -c 100' },
      '\u0000\u0001\uFFFD\uFFFD PNG\u001a exit code 0',
    );
    const huge = `${'x'.repeat(5_000_000)}\nError: out of memory at 512 MB\nexit code 137`;
    b.tool('run_command', { command: 'node build.js' }, huge);
    const facts = extractSpanFacts(spanMessages(b.build())).list();
    expect(texts(facts, 'path')).toContain('src/app/main.ts');
    expect(texts(facts, 'number')).toEqual(expect.arrayContaining(['15 min', '512 MB']));
    expect(facts.find((f) => f.text === 'node build.js')).toMatchObject({
      detail: 'exit 137',
      failed: true,
    });
    expect(texts(facts, 'error')).toEqual(['Error: out of memory at 512 MB']);
  });

  it('finds nothing in a span without facts', () => {
    const b = new ViewBuilder().user('hi').assistant('Hello! How can I help?');
    expect(
      extractSpanFacts(spanMessages(b.build()))
        .list()
        .map((f) => f.kind),
    ).toEqual(['instruction']);
  });
});
