import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CurrentMessage } from '../../shared/task-types';
import { useTempDir } from '../../../test/support/temp-dir';
import type { LlmProvider } from '../config/app-config';
import { CwbError } from '../errors';
import { writeRequestFile, type KeptRequest, type RequestFileOptions } from './request-file';
import { sampleMessage } from './test-support/current-file';
import type { ToolDefinition } from './tool-definition';

// A call extends the body the last call kept (issue #17): these tests pin down that the
// result is always the body a fresh write would give, and when the kept body is refused.

const tempDir = useTempDir('cwb-request-continue-');
const PROVIDERS: LlmProvider[] = ['openai', 'lmstudio', 'ollama'];
const TOOLS: ToolDefinition[] = [
  {
    type: 'function',
    function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } },
  },
];

function line(message: CurrentMessage): string {
  return `${JSON.stringify(message)}\n`;
}

function setup(first: number): { dir: string; currentPath: string; requestPath: string } {
  const dir = tempDir();
  const currentPath = path.join(dir, 'current.jsonl');
  fs.writeFileSync(
    currentPath,
    Array.from({ length: first }, (_, i) => line(sampleMessage(i))).join(''),
  );
  return { dir, currentPath, requestPath: path.join(dir, 'request.json') };
}

function append(currentPath: string, from: number, count: number): void {
  for (let i = from; i < from + count; i++) fs.appendFileSync(currentPath, line(sampleMessage(i)));
}

/** The body a fresh write gives for the same options, as bytes. */
async function fresh(options: RequestFileOptions): Promise<Buffer> {
  const requestPath = `${options.requestPath}.fresh`;
  await writeRequestFile({ ...options, requestPath, continueFrom: undefined });
  const bytes = fs.readFileSync(requestPath);
  fs.rmSync(requestPath);
  return bytes;
}

function options(
  provider: LlmProvider,
  paths: { currentPath: string; requestPath: string },
  more: Partial<RequestFileOptions> = {},
): RequestFileOptions {
  return {
    ...paths,
    provider,
    model: 'm',
    tools: TOOLS,
    stream: true,
    ...more,
  };
}

describe('writeRequestFile continuing a kept body', () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: lines appended since are added; the body equals a fresh one`, async () => {
      const paths = setup(7);
      // The first call has a longer tail (two extra messages) than the next: it must go.
      const extra: CurrentMessage[] = [
        { role: 'user', content: 'Summarize everything so far, please. '.repeat(20) },
        { role: 'user', content: 'And keep the paths.' },
      ];
      const first = await writeRequestFile(options(provider, paths, { extraMessages: extra }));
      expect(first.kept).toBeDefined();
      append(paths.currentPath, 7, 11);
      const next = options(provider, paths, { continueFrom: first.kept });
      const second = await writeRequestFile(next);
      const body = fs.readFileSync(paths.requestPath);
      expect(body.equals(await fresh(next))).toBe(true);
      expect(second).toMatchObject({ bytes: body.length, messages: 18 });
      // The third call, with nothing appended, is the same body again.
      const third = await writeRequestFile({ ...next, continueFrom: second.kept });
      expect(third.messages).toBe(18);
      expect(fs.readFileSync(paths.requestPath).equals(body)).toBe(true);
    });
  }

  it('does not read the kept lines again', async () => {
    const paths = setup(5);
    const first = await writeRequestFile(options('openai', paths));
    // Changed in place, same length, tail untouched: only a re-read would see it.
    const text = fs.readFileSync(paths.currentPath, 'utf8');
    fs.writeFileSync(paths.currentPath, text.replace('0: ASCII', '0: ascii'));
    append(paths.currentPath, 5, 1);
    await writeRequestFile(options('openai', paths, { continueFrom: first.kept }));
    const body = fs.readFileSync(paths.requestPath, 'utf8');
    expect(body).toContain('0: ASCII');
    expect(body).not.toContain('0: ascii');
    expect(JSON.parse(body).messages).toHaveLength(6);
  });

  const refusals: [string, (paths: { currentPath: string; requestPath: string }) => void][] = [
    [
      'current.jsonl was replaced by a new file (a compaction)',
      ({ currentPath }) => {
        const text = fs.readFileSync(currentPath, 'utf8');
        fs.writeFileSync(
          `${currentPath}.tmp`,
          `${line({ role: 'user', content: 'summary' })}${text}`,
        );
        fs.renameSync(`${currentPath}.tmp`, currentPath);
      },
    ],
    [
      'current.jsonl is shorter than the kept lines',
      ({ currentPath }) => {
        fs.truncateSync(currentPath, 10);
        fs.writeFileSync(currentPath, line({ role: 'user', content: 'only this' }));
      },
    ],
    [
      'current.jsonl was rewritten in place (its kept end changed)',
      ({ currentPath }) => {
        // Same file, same length, one letter of the last line's content changed.
        const text = fs.readFileSync(currentPath, 'utf8');
        fs.writeFileSync(currentPath, `${text.slice(0, -4)}S${text.slice(-3)}`);
      },
    ],
    ['request.json was removed', ({ requestPath }) => fs.rmSync(requestPath)],
    [
      'request.json was replaced by another file',
      ({ requestPath }) => {
        fs.writeFileSync(`${requestPath}.other`, '{"model":"m","messages":[]}');
        fs.renameSync(`${requestPath}.other`, requestPath);
      },
    ],
  ];
  for (const [what, change] of refusals) {
    it(`writes the body from the start when ${what}`, async () => {
      const paths = setup(6);
      const first = await writeRequestFile(options('ollama', paths));
      change(paths);
      const next = options('ollama', paths, { continueFrom: first.kept });
      let result: Awaited<ReturnType<typeof writeRequestFile>> | undefined;
      let error: unknown;
      try {
        result = await writeRequestFile(next);
      } catch (err) {
        error = err;
      }
      const expected = await fresh(next).catch((err: unknown) => err);
      if (expected instanceof Error) {
        // A file a fresh write refuses is refused the same way.
        expect((error as Error).message).toBe(expected.message);
        return;
      }
      expect(error).toBeUndefined();
      expect(fs.readFileSync(paths.requestPath).equals(expected as Buffer)).toBe(true);
      expect(result?.kept).toBeDefined();
    });
  }

  it('writes the body from the start for another model, provider or request file', async () => {
    const paths = setup(4);
    const first = await writeRequestFile(options('openai', paths));
    const kept = first.kept as KeptRequest;
    for (const more of [{ model: 'other' }, { provider: 'ollama' as const }]) {
      const next = options(more.provider ?? 'openai', paths, { ...more, continueFrom: kept });
      await writeRequestFile(next);
      expect(fs.readFileSync(paths.requestPath).equals(await fresh(next))).toBe(true);
    }
    const elsewhere = { ...paths, requestPath: path.join(paths.requestPath, '..', 'other.json') };
    const next = options('openai', elsewhere, { continueFrom: kept });
    await writeRequestFile(next);
    expect(fs.readFileSync(elsewhere.requestPath).equals(await fresh(next))).toBe(true);
  });

  it('keeps nothing when the last line has no newline yet (it may still be written to)', async () => {
    const paths = setup(3);
    fs.appendFileSync(paths.currentPath, JSON.stringify(sampleMessage(3)));
    const result = await writeRequestFile(options('openai', paths));
    expect(result.messages).toBe(4);
    expect(result.kept).toBeUndefined();
  });

  it('names the right line of a malformed appended line, and leaves no request file', async () => {
    const paths = setup(3);
    const first = await writeRequestFile(options('openai', paths));
    append(paths.currentPath, 3, 2);
    fs.appendFileSync(paths.currentPath, '{"role": "user", "content": \n');
    const error = await writeRequestFile(
      options('openai', paths, { continueFrom: first.kept }),
    ).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CwbError);
    expect((error as Error).message).toContain(`${paths.currentPath} line 6: malformed JSON`);
    expect(fs.existsSync(paths.requestPath)).toBe(false);
  });
});
