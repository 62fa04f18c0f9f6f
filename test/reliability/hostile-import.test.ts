/**
 * Hostile input (issue 9): import files fuzzed with fast-check — random JSON documents,
 * near-misses of every transcript format (OpenAI chat, SWE-agent, Claude Code and Codex
 * JSONL), random bytes, zip-like bytes and zips with hostile entries — through importPaths.
 * Each file is imported or reported with a clear error; a failed file leaves nothing in
 * the contexts root (no row, no folder, no staging leftovers); nothing outside the contexts
 * root changes (a sibling folder with a canary file is snapshotted); an imported task is
 * consistent and readable.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../../src/core/store/context-store';
import { importPaths } from '../../src/core/import';
import { STATUS_FOLDERS } from '../../src/core/store/contexts-layout';
import { isTaskUuid } from '../../src/shared/uuid';
import { rawZip } from '../support/raw-zip';
import { assertDbMatchesFolders, parseJsonl } from '../support/reliability';
import { useTempDir } from '../support/temp-dir';

const tempDir = useTempDir('cwb-hostile-import-');

// ------------------------------------------------------------------ generators

const anyValue = fc.jsonValue({ maxDepth: 3 });
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '../../etc/passwd', '/tmp/x', 'a\u0000b', '${HOME}', '%s%n'),
);
const loose = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | unknown> =>
  fc.oneof({ weight: 4, arbitrary: a }, { weight: 1, arbitrary: anyValue });

const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text: loose(text) }, { requiredKeys: ['type'] }),
  fc.record(
    { type: fc.constant('tool_use'), id: loose(text), name: loose(text), input: anyValue },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('tool_result'),
      tool_use_id: loose(text),
      content: loose(
        fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text: text }))),
      ),
      is_error: fc.boolean(),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('thinking'), thinking: loose(text) }, { requiredKeys: ['type'] }),
  anyValue,
);
const chatMessage = fc.record(
  {
    role: loose(fc.constantFrom('system', 'user', 'assistant', 'tool', 'function', 'developer')),
    content: loose(fc.oneof(text, fc.constant(null), fc.array(part, { maxLength: 3 }))),
    tool_calls: loose(
      fc.array(
        fc.record(
          {
            id: loose(text),
            type: fc.constant('function'),
            function: loose(fc.record({ name: loose(text), arguments: loose(text) })),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
    ),
    tool_call_id: loose(text),
    name: loose(text),
  },
  { requiredKeys: [] },
);
const openAiDoc = fc.oneof(
  fc.record(
    { messages: fc.array(chatMessage, { maxLength: 6 }), model: loose(text) },
    { requiredKeys: ['messages'] },
  ),
  fc.array(chatMessage, { minLength: 1, maxLength: 6 }),
  fc.array(fc.record({ messages: fc.array(chatMessage, { maxLength: 4 }) }), {
    minLength: 1,
    maxLength: 3,
  }),
);
const sweDoc = fc.record(
  {
    history: fc.array(
      fc.record(
        {
          role: loose(fc.constantFrom('system', 'user', 'assistant')),
          content: loose(text),
          is_demo: fc.boolean(),
          agent: loose(text),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 5 },
    ),
    trajectory: fc.array(
      fc.record(
        {
          action: loose(text),
          observation: loose(text),
          response: loose(text),
          thought: loose(text),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 4 },
    ),
    info: loose(
      fc.record(
        {
          exit_status: loose(text),
          model_stats: loose(
            fc.record({
              tokens_sent: fc.integer(),
              tokens_received: fc.integer(),
              api_calls: fc.integer(),
            }),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: ['history'] },
);
const claudeLine = fc.record(
  {
    type: loose(fc.constantFrom('user', 'assistant', 'system', 'summary')),
    sessionId: loose(text),
    uuid: loose(fc.oneof(fc.uuid(), text)),
    parentUuid: loose(fc.oneof(fc.uuid(), fc.constant(null))),
    timestamp: loose(
      fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        text,
      ),
    ),
    isSidechain: loose(fc.boolean()),
    cwd: loose(text),
    message: loose(
      fc.record(
        {
          role: loose(fc.constantFrom('user', 'assistant')),
          content: loose(fc.oneof(text, fc.array(part, { maxLength: 3 }))),
          usage: loose(fc.record({ input_tokens: fc.integer(), output_tokens: fc.integer() })),
          model: loose(text),
        },
        { requiredKeys: [] },
      ),
    ),
    summary: loose(text),
    leafUuid: loose(fc.uuid()),
    toolUseResult: anyValue,
  },
  { requiredKeys: ['type', 'sessionId'] },
);
const codexLine = fc.record(
  {
    timestamp: loose(text),
    type: loose(
      fc.constantFrom('session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted'),
    ),
    payload: fc.record(
      {
        type: loose(
          fc.constantFrom(
            'message',
            'function_call',
            'function_call_output',
            'reasoning',
            'custom_tool_call',
            'token_count',
            'user_message',
            'agent_message',
          ),
        ),
        role: loose(fc.constantFrom('user', 'assistant', 'developer')),
        content: loose(
          fc.array(
            fc.record({ type: fc.constantFrom('input_text', 'output_text'), text: loose(text) }),
            { maxLength: 2 },
          ),
        ),
        name: loose(text),
        arguments: loose(text),
        call_id: loose(text),
        output: loose(text),
        id: loose(text),
        cwd: loose(text),
        message: loose(text),
        info: anyValue,
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['type', 'payload'] },
);
const jsonl = <T>(line: fc.Arbitrary<T>): fc.Arbitrary<Buffer> =>
  fc
    .array(
      fc.oneof(
        { weight: 5, arbitrary: line.map((l) => JSON.stringify(l)) },
        { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => s.replace(/\n/g, '')) },
      ),
      { minLength: 1, maxLength: 8 },
    )
    .map((lines) => Buffer.from(`${lines.join('\n')}\n`));

const zipEntryName = fc.oneof(
  fc.constantFrom(
    'manifest.json',
    '../escape.txt',
    '/etc/cwb-abs',
    'a/../../b',
    'C:\\x',
    'x\u0000y',
  ),
  fc
    .uuid()
    .chain((u) =>
      fc.constantFrom(
        `${u}/messages.jsonl`,
        `${u}/metadata.json`,
        `${u}/current.jsonl`,
        `${u}/tool_outputs/x.txt`,
        `${u}/../../up`,
      ),
    ),
  fc.string({ maxLength: 20 }),
);

/** An archive in our layout (written raw, so names yazl would refuse can be in it too). */
function archiveWith(manifest: unknown, files: Record<string, string>): Buffer {
  return rawZip([
    ...Object.entries(files).map(([name, data]) => ({ name, data })),
    { name: 'manifest.json', data: JSON.stringify(manifest) },
  ]);
}

type Input =
  | { name: string; bytes: Buffer }
  | { name: string; archive: { manifest: unknown; files: Record<string, string> } };

const inputs: fc.Arbitrary<Input> = fc.oneof(
  anyValue.map((v) => ({ name: 'doc.json', bytes: Buffer.from(JSON.stringify(v)) })),
  openAiDoc.map((v) => ({ name: 'chat.json', bytes: Buffer.from(JSON.stringify(v)) })),
  sweDoc.map((v) => ({ name: 'run.traj', bytes: Buffer.from(JSON.stringify(v)) })),
  jsonl(claudeLine).map((bytes) => ({ name: 'session.jsonl', bytes })),
  jsonl(codexLine).map((bytes) => ({ name: 'rollout.jsonl', bytes })),
  fc.uint8Array({ maxLength: 300 }).map((b) => ({ name: 'bytes.bin', bytes: Buffer.from(b) })),
  fc.uint8Array({ maxLength: 300 }).map((b) => ({
    name: 'fake.zip',
    bytes: Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.from(b)]),
  })),
  fc
    .array(fc.record({ name: zipEntryName, data: fc.string({ maxLength: 50 }) }), { maxLength: 4 })
    .map((entries) => ({ name: 'raw.zip', bytes: rawZip(entries) })),
  fc
    .tuple(
      fc.uuid(),
      anyValue,
      fc.string({ maxLength: 40 }),
      fc.constantFrom('ok', 'bad-sha', 'bad-uuid', 'extra-file'),
    )
    .map(([uuid, noise, body, how]) => {
      const line = `${JSON.stringify({ seq: 1, role: 'user', content: body, timestamp: '2026-01-01T00:00:00.000Z', tokens: 1, tokens_o200k: 1 })}\n`;
      const sha = crypto.createHash('sha256').update(line).digest('hex');
      const id = how === 'bad-uuid' ? '../../x' : uuid;
      return {
        name: 'archive.zip',
        archive: {
          manifest: {
            format: 'cwb-archive',
            version: 1,
            created_at: '2026-01-01T00:00:00.000Z',
            tasks: [
              {
                uuid: id,
                row: { uuid: id, status: 'completed', title: noise },
                files: [
                  {
                    path: 'messages.jsonl',
                    bytes: Buffer.byteLength(line),
                    sha256: how === 'bad-sha' ? '0'.repeat(64) : sha,
                  },
                ],
              },
            ],
          },
          files: {
            [`${id}/messages.jsonl`]: line,
            ...(how === 'extra-file' && { [`${uuid}/notes.sh`]: 'rm -rf /' }),
          },
        },
      };
    }),
);

// ------------------------------------------------------------------ checks

/** Every path under `dir` but `skip`, with its size and mtime (a snapshot to compare). */
function snapshot(dir: string, skip: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (d === dir && e.name === skip) continue;
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      out.push(`${path.relative(dir, p)} ${e.isDirectory() ? 'dir' : st.size} ${st.mtimeMs}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

function taskFolders(root: string): string[] {
  return STATUS_FOLDERS.flatMap((f) => {
    const dir = path.join(root, f);
    return fs.existsSync(dir) ? fs.readdirSync(dir).map((n) => `${f}/${n}`) : [];
  }).sort();
}

/** Leftovers of an import that did not finish: anything in .staging, any temp file. */
function leftovers(root: string): string[] {
  const staging = path.join(root, '.staging');
  const inStaging = fs.existsSync(staging) ? fs.readdirSync(staging) : [];
  const strays = taskFolders(root).filter((f) => !isTaskUuid(f.split('/')[1]));
  return [...inStaging.map((n) => `.staging/${n}`), ...strays];
}

const INTERNAL =
  /TypeError|ReferenceError|RangeError|SyntaxError: Unexpected|Cannot read propert|is not a function|is not iterable|\n\s+at /;

describe('hostile import files', () => {
  it('each file is imported or refused with a clear error; a refused one leaves nothing; nothing outside the contexts root changes', async () => {
    const base = tempDir();
    const root = path.join(base, 'contexts');
    const inbox = path.join(base, 'inbox');
    const sibling = path.join(base, 'sibling');
    fs.mkdirSync(inbox);
    fs.mkdirSync(sibling);
    fs.writeFileSync(path.join(sibling, 'canary.txt'), 'do not touch\n');
    fs.writeFileSync(path.join(base, 'escape.txt.canary'), 'x');
    const store = ContextStore.open(root);
    const outside = (): string[] => snapshot(base, 'contexts');
    const tally = { imported: 0, refused: 0 };
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(inputs, async (input) => {
          const file = path.join(inbox, `${n++}-${input.name}`);
          fs.writeFileSync(
            file,
            'archive' in input
              ? archiveWith(input.archive.manifest, input.archive.files)
              : input.bytes,
          );
          const before = {
            outside: outside(),
            folders: taskFolders(root),
            rows: store.repo.allStatuses().size,
          };
          const run = await importPaths(store, [file]);
          expect(run.results.length + run.failed.length).toBe(1);
          for (const f of run.failed) {
            tally.refused++;
            expect(f.error, f.error).not.toMatch(INTERNAL);
            expect(f.error.length).toBeGreaterThan(0);
            // A refused file leaves no row, no folder, nothing staged.
            expect(taskFolders(root)).toEqual(before.folders);
            expect(store.repo.allStatuses().size).toBe(before.rows);
          }
          for (const r of run.results) {
            tally.imported++;
            for (const t of r.tasks) {
              const row = store.requireTask(t.uuid);
              const reader = store.readTask(t.uuid);
              const window = reader.messages(1, 10_000);
              expect(window.bad).toEqual([]);
              expect(window.messages.map((m) => m.seq)).toEqual(
                window.messages.map((_, i) => i + 1),
              );
              expect(row.total_messages).toBe(window.total);
              parseJsonl(path.join(reader.dir, 'current.jsonl'));
            }
          }
          expect(leftovers(root)).toEqual([]);
          assertDbMatchesFolders(store);
          // Nothing changed outside the contexts root (the input file included).
          expect(outside()).toEqual(before.outside);
          fs.rmSync(file);
        }),
        { numRuns: 160 },
      );
    } finally {
      store.close();
    }
    expect(fs.readFileSync(path.join(sibling, 'canary.txt'), 'utf8')).toBe('do not touch\n');
    expect(tally.imported).toBeGreaterThan(10);
    expect(tally.refused).toBeGreaterThan(10);
  }, 120_000);
});
