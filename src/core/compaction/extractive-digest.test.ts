import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CurrentMessage, MessageRole } from '../../shared/task-types';
import {
  DIGEST_MAX_TOKENS,
  EXTRACTIVE_DEFAULTS,
  EXTRACTIVE_HEADER,
  extractive,
  extractiveDigest,
  digestTokens,
  extractiveSummarizer,
  parseDigest,
} from './extractive-digest';
import { viewTokens } from './view';
import type { ExtractiveParams } from './extractive-digest';
import { exitStatus } from '../facts/tool-actions';
import type { ContextStats } from './strategy';
import { realFixture } from '../../../test/support/real-fixtures';
import { estimateTokens } from '../tokens/estimate';
import {
  ViewBuilder,
  fakeSummarizer,
  pairsIntact,
  strategyContext,
} from './test-support/synthetic-view';

const TRAJECTORY = realFixture('swe-agent', 'pydicom__pydicom-1458.traj');

/** A session of our own agent: read, search, edit, a failing then passing test run, a plan. */
function codingSession(): ViewBuilder {
  const b = new ViewBuilder()
    .system('You are a coding agent. Tools: read_file, list_dir, grep, write_file, run_command.')
    .user(
      'The date parser rejects ISO week dates like 2024-W05-3. Make it accept them and add a test.',
    );
  b.tool('list_dir', { path: 'src' }, 'date/\nindex.ts 120', 'Let me look at the layout first.');
  b.tool(
    'grep',
    { pattern: 'parseDate', path: 'src/date' },
    'src/date/parse.ts:12: export function parseDate(',
  );
  b.tool(
    'read_file',
    { path: 'src/date/parse.ts' },
    '1\texport function parseDate(s: string) {\n2\t  throw new Error("unsupported");\n3\t}',
  );
  b.tool(
    'run_command',
    { command: 'npx vitest run src/date' },
    'FAIL src/date/parse.test.ts > week dates\nError: unsupported format "2024-W05-3"\nexit code 1',
    'I will run the tests to see the failure before changing anything.',
  );
  b.assistant(
    'I decided to add a separate week-date branch because the calendar-date regex is already complex.',
  );
  b.tool(
    'write_file',
    { path: 'src/date/parse.ts', content: 'export function parseDate() {}' },
    'wrote 31 bytes to src/date/parse.ts',
  );
  b.tool('Edit', { file_path: 'src/date/parse.test.ts', old_string: 'a', new_string: 'b' }, 'ok');
  b.tool('run_command', { command: 'npx vitest run src/date' }, '2 passed\nexit code 0');
  b.tool(
    'update_plan',
    {
      plan: '1. reproduce [done]\n2. implement week dates [done]\n3. document the format in README',
    },
    'plan saved',
  );
  b.assistant(
    'The parser now accepts week dates.\n\nNext steps:\n- [ ] document the format in README.md\n- TODO: handle ordinal dates (2024-035)',
  );
  return b;
}

function stats(tokens: number): ContextStats {
  return {
    currentTokens: tokens,
    lastUsageTokens: undefined,
    messageCount: 10,
    contextWindow: 100_000,
    maxOutputTokens: 4_000,
  };
}

const params = (overrides: Partial<ExtractiveParams> = {}): ExtractiveParams => ({
  ...EXTRACTIVE_DEFAULTS,
  ...overrides,
});

function section(digest: string, title: string): string[] {
  const parsed = parseDigest(digest);
  if (!parsed) throw new Error('not a digest');
  const key = {
    'Files read': 'read',
    'Files written': 'written',
    Commands: 'commands',
    Errors: 'errors',
    Decisions: 'decisions',
    'Open items': 'open',
  }[title] as keyof typeof parsed.lists;
  return parsed.lists[key] ?? [];
}

describe('extractiveDigest on a coding session', () => {
  const digest = extractiveDigest(codingSession().build().slice(1));

  it('has the goal: the first user message', () => {
    expect(parseDigest(digest)?.goal).toBe(
      'The date parser rejects ISO week dates like 2024-W05-3. Make it accept them and add a test.',
    );
  });

  it('lists files read (read_file, grep, list_dir) and written (write_file, Edit)', () => {
    expect(section(digest, 'Files read')).toEqual(['src', 'src/date', 'src/date/parse.ts']);
    expect(section(digest, 'Files written')).toEqual([
      'src/date/parse.ts',
      'src/date/parse.test.ts',
    ]);
  });

  it('lists commands with their last exit code', () => {
    expect(section(digest, 'Commands')).toEqual(['`npx vitest run src/date` → exit 0']);
  });

  it('lists error lines from tool results', () => {
    expect(section(digest, 'Errors')).toEqual([
      'run_command: FAIL src/date/parse.test.ts > week dates',
      'run_command: Error: unsupported format "2024-W05-3"',
    ]);
    // the source file read_file showed contains `throw new Error`: code, not an error
    expect(digest).not.toContain('unsupported");');
  });

  it('lists decisions from assistant prose', () => {
    const decisions = section(digest, 'Decisions');
    expect(decisions).toContain(
      'I will run the tests to see the failure before changing anything.',
    );
    expect(decisions).toContain(
      'I decided to add a separate week-date branch because the calendar-date regex is already complex.',
    );
  });

  it('lists open items from the last assistant messages and the newest plan', () => {
    const open = section(digest, 'Open items');
    expect(open).toContain('document the format in README.md');
    expect(open).toContain('TODO: handle ordinal dates (2024-035)');
    expect(open).toContain('3. document the format in README');
    expect(open.some((o) => o.includes('[done]'))).toBe(false);
  });

  it('stays within its token budget however long the session', () => {
    const b = new ViewBuilder().user('Big task. '.repeat(2000));
    for (let i = 0; i < 400; i++) {
      b.tool('read_file', { path: `src/module-${i}/a-rather-long-file-name-${i}.ts` }, 'x');
      b.tool(
        'run_command',
        { command: `npm run step-${i} -- --with --many --flags` },
        `Error: step ${i} failed because of reason ${i}\nexit code 1`,
      );
      b.assistant(
        `I will try approach ${i} because the previous one failed for a reason that takes a while to explain.`,
      );
    }
    const big = extractiveDigest(b.build());
    expect(estimateTokens(big)).toBeLessThanOrEqual(DIGEST_MAX_TOKENS);
    expect(big).toMatch(/\(\d+ earlier not shown\)/);
    // the newest items survive
    expect(big).toContain('src/module-399/a-rather-long-file-name-399.ts');
    expect(big).toContain('npm run step-399');
    expect(estimateTokens(extractiveDigest(b.build(), { maxTokens: 300 }))).toBeLessThanOrEqual(
      300,
    );
  });

  it('knows other agents’ tools: Claude Code, Codex, str_replace_editor, apply_patch', () => {
    const b = new ViewBuilder().user('Task');
    b.tool('Read', { file_path: '/repo/a.py' }, 'print(1)');
    b.tool('Bash', { command: 'pytest -q' }, 'Exit code: 2');
    b.tool(
      'shell',
      { command: ['bash', '-lc', 'cargo build'] },
      '{"output":"","metadata":{"exit_code":101}}',
    );
    b.tool('str_replace_editor', { command: 'view', path: '/repo/b.py' }, 'x');
    b.tool('str_replace_editor', { command: 'str_replace', path: '/repo/c.py' }, 'ok');
    b.tool(
      'apply_patch',
      {
        input:
          '*** Begin Patch\n*** Update File: src/lib.rs\n@@\n*** Add File: src/new.rs\n*** End Patch',
      },
      'Done',
    );
    b.tool(
      'shell',
      { command: ['apply_patch', '*** Begin Patch\n*** Update File: src/main.rs\n*** End Patch'] },
      'Done',
    );
    const d = extractiveDigest(b.build());
    expect(section(d, 'Files read')).toEqual(['/repo/a.py', '/repo/b.py']);
    expect(section(d, 'Files written')).toEqual([
      '/repo/c.py',
      'src/lib.rs',
      'src/new.rs',
      'src/main.rs',
    ]);
    expect(section(d, 'Commands')).toEqual(['`pytest -q` → exit 2', '`cargo build` → exit 101']);
  });

  it('folds an earlier digest in instead of digesting it', () => {
    const first = extractiveDigest(codingSession().build().slice(1));
    const b = new ViewBuilder().user(
      `${EXTRACTIVE_HEADER} 12 messages (~900 tokens) condensed.\n\n${first}`,
    );
    b.tool('read_file', { path: 'README.md' }, '# dates');
    const second = extractiveDigest(b.build());
    expect(parseDigest(second)?.goal).toBe(parseDigest(first)?.goal);
    expect(section(second, 'Files read')).toEqual([
      'src',
      'src/date',
      'src/date/parse.ts',
      'README.md',
    ]);
    expect(section(second, 'Commands')).toEqual(['`npx vitest run src/date` → exit 0']);
  });
});

describe('extractiveDigest details', () => {
  it('takes the goal from the request the first reply answers, else the first user message', () => {
    const setup = new ViewBuilder()
      .user('Here is how our tools work: ...')
      .user('Rename foo to bar.')
      .assistant('On it.');
    expect(parseDigest(extractiveDigest(setup.build()))?.goal).toBe('Rename foo to bar.');
    const unanswered = new ViewBuilder().user('First question.').user('Second question.');
    expect(parseDigest(extractiveDigest(unanswered.build()))?.goal).toBe('First question.');
  });

  it('does not take a model summary that uses a "## Goal" heading for a digest', () => {
    expect(parseDigest('## Goal\nShip it.\n\n## Progress\nHalf done.')).toBeUndefined();
    expect(parseDigest('## Goal\nShip it.\n\n## Commands\n- `make` → exit 0')).toEqual({
      goal: 'Ship it.',
      lists: { commands: ['`make` → exit 0'] },
    });
  });

  it('reads a command from a text-protocol agent only when its message ends with a shell fence', () => {
    const b = new ViewBuilder().user('Task.');
    b.assistant('Example:\n```python\nprint(1)\n```').user('ok');
    b.assistant('```\nls -la\n```\nThat lists files.').user('ok');
    b.assistant('Running it.\n```bash\npytest -x\n```').user(
      '1 failed\nFAILED tests/test_a.py::test_b',
    );
    const d = extractiveDigest(b.build());
    expect(section(d, 'Commands')).toEqual(['`pytest -x`']);
    expect(section(d, 'Errors')).toEqual(['pytest -x: FAILED tests/test_a.py::test_b']);
  });
});

describe('long outputs', () => {
  it('finds the status and the error at the end of a multi-megabyte output', () => {
    const b = new ViewBuilder().user('Build it.');
    const log = `${'compiling module with some warnings\n'.repeat(100_000)}error[E0308]: mismatched types\nexit code 101`;
    b.tool('run_command', { command: 'cargo build' }, log);
    const d = extractiveDigest(b.build());
    expect(section(d, 'Commands')).toEqual(['`cargo build` → exit 101']);
    expect(section(d, 'Errors')).toEqual(['run_command: error[E0308]: mismatched types']);
  });
});

describe('exitStatus', () => {
  it.each([
    ['ok\nexit code 0', 'exit 0'],
    ['Exit code: 3', 'exit 3'],
    ['Process exited with code 1', 'exit 1'],
    ['{"exit_code": 127}', 'exit 127'],
    ['killed by timeout after 60000 ms', 'killed'],
    ['no status here', undefined],
  ])('%j → %s', (text, status) => {
    expect(exitStatus(text)).toBe(status);
  });
});

/** SWE-agent `history` as our importer writes it: role and content, one message each. */
function trajectoryView(): { view: ViewBuilder; raw: string } {
  const raw = fs.readFileSync(TRAJECTORY, 'utf8');
  const doc = JSON.parse(raw) as { history: { role: string; content: unknown }[] };
  const b = new ViewBuilder();
  for (const m of doc.history) {
    const message: CurrentMessage = {
      role: m.role as MessageRole,
      content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    };
    b.add(message);
  }
  return { view: b, raw };
}

describe('extractiveDigest on a real SWE-agent trajectory (pydicom__pydicom-1458)', () => {
  const { view, raw } = trajectoryView();
  const entries = view.build();
  const digest = extractiveDigest(entries.slice(1));

  it('finds the files the agent opened, created and edited', () => {
    const read = section(digest, 'Files read');
    const written = section(digest, 'Files written');
    expect(read).toContain('pydicom/pixel_data_handlers/numpy_handler.py');
    expect(written).toContain('reproduce_bug.py');
    expect(written).toContain('/pydicom__pydicom/pydicom/pixel_data_handlers/numpy_handler.py');
    for (const p of [...read, ...written]) expect(raw).toContain(p);
  });

  it('finds the commands it ran', () => {
    const commands = section(digest, 'Commands').map((c) => /^`([^`]+)`/.exec(c)![1]!);
    expect(commands).toEqual(
      expect.arrayContaining([
        'python reproduce_bug.py',
        'find_file "numpy_handler.py"',
        'rm reproduce_bug.py',
        'submit',
      ]),
    );
    for (const c of commands) expect(raw).toContain(JSON.stringify(c).slice(1, -1));
  });

  it('finds the errors the observations reported, not "no errors"', () => {
    const errors = section(digest, 'Errors').join('\n');
    expect(errors).toContain('PixelRepresentation');
    expect(errors).toContain('SyntaxError');
    expect(errors).not.toMatch(/no errors/);
  });

  it('takes the goal from the task, not the demonstration before it', () => {
    const goal = parseDigest(digest)!.goal!;
    expect(goal).toContain(
      'Pixel Representation attribute should be optional for pixel data handler',
    );
    expect(goal).not.toContain('DEMONSTRATION');
  });

  it('stays within budget and can be read back', () => {
    expect(estimateTokens(digest)).toBeLessThanOrEqual(DIGEST_MAX_TOKENS);
    expect(parseDigest(digest)?.goal).toBeTruthy();
  });
});

describe('extractiveSummarizer', () => {
  it('is the extractive kind, has no complete, and ignores the prompt', async () => {
    expect(extractiveSummarizer.kind).toBe('extractive');
    expect(extractiveSummarizer.complete).toBeUndefined();
    const entries = codingSession().build().slice(1);
    expect(await extractiveSummarizer.summarize(entries, 'ignored {messages}')).toBe(
      extractiveDigest(entries, { maxTokens: digestTokens(viewTokens(entries)) }),
    );
  });
});

describe('extractive strategy', () => {
  it('triggers above threshold_tokens', () => {
    expect(extractive.needed(stats(8_000), params())).toBe(false);
    expect(extractive.needed(stats(8_001), params())).toBe(true);
  });

  it('replaces everything between the system messages and the newest messages with one digest', async () => {
    const view = codingSession().build();
    const summarizer = fakeSummarizer();
    const result = await extractive.run(
      strategyContext(view, { summarizer, dryRun: true }),
      params({ keep_recent_messages: 2 }),
    );
    if (!result.applied) throw new Error(result.reason);
    expect(summarizer.prompts).toEqual([]); // never an LLM, even when one is configured
    expect(result.estimated).toBeUndefined();
    expect(result.view[0]).toBe(view[0]);
    const digest = result.view[1]!;
    expect(digest.create).toBe('summary');
    expect(digest.message.role).toBe('user');
    expect(digest.message.content!.startsWith(EXTRACTIVE_HEADER)).toBe(true);
    expect(result.summary).toBe(digest.message.content);
    // keep 2 would start at a tool result: the cut moves back to its call
    expect(result.view.slice(2)).toEqual(view.slice(-3));
    expect(pairsIntact(result.view)).toBe(true);
  });

  it('leaves the view it was given untouched', async () => {
    const view = codingSession().build();
    const before = JSON.stringify(view);
    await extractive.run(strategyContext(view), params());
    expect(JSON.stringify(view)).toBe(before);
  });

  it('declines below min_to_compress, below the trigger on auto, and when the digest would not be smaller', async () => {
    const view = codingSession().build();
    const few = await extractive.run(
      strategyContext(view),
      params({ keep_recent_messages: 18, min_to_compress: 5 }),
    );
    expect(few.applied).toBe(false);
    const auto = await extractive.run(strategyContext(view, { reason: 'auto' }), params());
    expect(auto.applied).toBe(false);
    const tiny = new ViewBuilder()
      .user('hi')
      .assistant('hello')
      .user('ok')
      .assistant('fine')
      .user('go')
      .assistant('done')
      .build();
    const notSmaller = await extractive.run(
      strategyContext(tiny),
      params({ keep_recent_messages: 1, min_to_compress: 1 }),
    );
    expect(notSmaller.applied).toBe(false);
    if (!notSmaller.applied) expect(notSmaller.reason).toMatch(/not be smaller/);
  });
});

describe('the goal skips injected boilerplate', () => {
  it('takes the first real request, not a /clear command, its caveat or a system reminder', () => {
    const b = new ViewBuilder();
    for (const m of [
      {
        role: 'user',
        content:
          'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.',
      },
      {
        role: 'user',
        content:
          '<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>',
      },
      { role: 'user', content: '<local-command-stdout></local-command-stdout>' },
      {
        role: 'user',
        content: '<system-reminder>Todo list is empty</system-reminder>\nFix the flaky login test',
      },
      { role: 'assistant', content: 'Looking at it.' },
    ] as CurrentMessage[])
      b.add(m);
    const text = extractiveDigest(b.build());
    expect(text).toContain('## Goal\nFix the flaky login test');
    expect(text).not.toContain('command-name');
  });
});
