import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { writeRequestFile } from '../../src/core/llm/request-file';
import { builtinToolDefinitions } from '../../src/core/tools/tool-registry';
import type { LlmProvider } from '../../src/core/config/app-config';
import { sharedBigTask } from '../lib/big-task';
import { mb, mbps, percent, ratio } from '../lib/format';
import { median, pairedRatio } from '../lib/stats';
import { judge, row, type BenchContext, type BenchGroup, type Row } from '../lib/types';

type Way = 'request' | 'copyFile' | 'stream';

async function once(way: Way, src: string, dst: string, provider: LlmProvider): Promise<number> {
  fs.rmSync(dst, { force: true });
  const started = performance.now();
  if (way === 'request') {
    await writeRequestFile({
      currentPath: src,
      requestPath: dst,
      provider,
      model: 'gpt-4o',
      tools: builtinToolDefinitions({ allowRunCommand: true }),
      stream: true,
      maxOutputTokens: 16_384,
    });
  } else if (way === 'copyFile') {
    await fs.promises.copyFile(src, dst);
  } else {
    await pipeline(fs.createReadStream(src), fs.createWriteStream(dst));
  }
  const elapsed = performance.now() - started;
  fs.rmSync(dst, { force: true });
  return elapsed;
}

/** The body must be what the provider gets: one JSON object with every line of current.jsonl. */
async function check(src: string, dst: string, provider: LlmProvider): Promise<void> {
  await writeBody(src, dst, provider);
  const lines = fs.readFileSync(src, 'utf8').split('\n').filter(Boolean).length;
  const body = JSON.parse(fs.readFileSync(dst, 'utf8')) as { messages: unknown[] };
  fs.rmSync(dst, { force: true });
  if (body.messages.length !== lines) {
    throw new Error(`request.json holds ${body.messages.length} messages for ${lines} lines`);
  }
}

/**
 * A body past V8's string limit (512 MiB) cannot be parsed back. The 1 GB context is the
 * checked one `times` over, so its body must be the checked body with its messages `times`
 * over: compared byte for byte as it is read.
 */
async function checkRepeated(
  checked: string,
  times: number,
  src: string,
  dst: string,
  provider: LlmProvider,
): Promise<void> {
  await writeBody(checked, dst, provider);
  const small = fs.readFileSync(dst);
  const head = Buffer.from('{"model":"gpt-4o","messages":[');
  // The footer holds no array, so the last `],"` is where the messages end.
  const end = small.lastIndexOf('],"');
  if (!small.subarray(0, head.length).equals(head) || end < head.length) {
    throw new Error(`request.json for ${checked} does not have the expected head and foot`);
  }
  const messages = small.subarray(head.length, end);
  const expected = [head, messages];
  for (let i = 1; i < times; i++) expected.push(Buffer.from(','), messages);
  expected.push(small.subarray(end));
  await writeBody(src, dst, provider);
  const at = sameBytes(dst, expected);
  fs.rmSync(dst, { force: true });
  if (at !== undefined) throw new Error(`request.json for ${src} differs at byte ${at}`);
}

function writeBody(src: string, dst: string, provider: LlmProvider): Promise<unknown> {
  return writeRequestFile({
    currentPath: src,
    requestPath: dst,
    provider,
    model: 'gpt-4o',
    stream: true,
  });
}

/** Where `file` first differs from `pieces` joined (undefined when it does not), read 1 MiB at a time. */
function sameBytes(file: string, pieces: Buffer[]): number | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    let position = 0;
    for (const piece of pieces) {
      for (let done = 0; done < piece.length;) {
        const want = Math.min(buffer.length, piece.length - done);
        const got = fs.readSync(fd, buffer, 0, want, position);
        if (got === 0 || !buffer.subarray(0, got).equals(piece.subarray(done, done + got))) {
          return position;
        }
        done += got;
        position += got;
      }
    }
    return fs.readSync(fd, buffer, 0, 1, position) === 0 ? undefined : position;
  } finally {
    fs.closeSync(fd);
  }
}

export const requestFileGroup: BenchGroup = {
  id: 'request-file',
  title: 'Building request.json vs a plain copy of the same bytes',
  about:
    "`writeRequestFile` (src/core/llm/request-file.ts) turns a task's current.jsonl into the HTTP body: a header, every line projected for the provider and joined with commas, the tool definitions and a footer. It is timed against two plain copies of the same file in the same run: `fs.copyFile` and a stream copy (`pipeline(createReadStream, createWriteStream)`). Throughput is current.jsonl bytes per second. Every file is in the page cache (the machine has plenty of memory), so this compares CPU work, not the disk.",
  async run(ctx: BenchContext) {
    const rows: Row[] = [];
    const notes: string[] = [];
    const task = await sharedBigTask(ctx);
    const sources: { label: string; file: string; repeats?: { of: string; times: number } }[] = [
      {
        label: `${mb(task.currentBytes)} current.jsonl`,
        file: path.join(task.dir, 'current.jsonl'),
      },
    ];
    if (ctx.full) {
      if (ctx.freeBytes() > 3.5e9) {
        // 1 GB: the 100 MB context ten times over (valid lines; ids repeat, which the builder ignores).
        const big = path.join(ctx.tmp, 'current-1gb.jsonl');
        for (let i = 0; i < 10; i++) fs.appendFileSync(big, fs.readFileSync(sources[0]!.file));
        sources.push({
          label: `${mb(fs.statSync(big).size)} current.jsonl`,
          file: big,
          repeats: { of: sources[0]!.file, times: 10 },
        });
      } else {
        notes.push(
          `The 1 GB case was skipped: ${mb(ctx.freeBytes())} free on the scratch disk, it needs ~3.5 GB.`,
        );
      }
    }
    const dst = path.join(ctx.tmp, 'request.json');
    for (const source of sources) {
      const bytes = fs.statSync(source.file).size;
      for (const provider of ['openai', 'ollama'] as const) {
        if (source.repeats) {
          await checkRepeated(source.repeats.of, source.repeats.times, source.file, dst, provider);
        } else {
          await check(source.file, dst, provider);
        }
        const times: Record<Way, number[]> = { request: [], copyFile: [], stream: [] };
        for (let i = 0; i < ctx.runs; i++) {
          const order: Way[] =
            i % 2 === 0 ? ['request', 'copyFile', 'stream'] : ['stream', 'copyFile', 'request'];
          for (const way of order) times[way].push(await once(way, source.file, dst, provider));
        }
        ctx.log(`  ${source.label} ${provider}: request ${mbps(bytes, median(times.request))}`);
        const vsStream = pairedRatio(times.stream, times.request);
        const vsCopy = pairedRatio(times.copyFile, times.request);
        const what = `request.json for ${provider === 'openai' ? 'OpenAI' : 'Ollama'} from ${source.label}`;
        rows.push(
          row(
            `${what} vs stream copy`,
            mbps(bytes, median(times.request)),
            mbps(bytes, median(times.stream)),
            ratio(vsStream),
            '≥ 0.5× the copy (judged against the stream copy)',
            judge(
              vsStream >= 0.5,
              `${ratio(vsStream)}: ${((0.5 - vsStream) * 100).toFixed(0)} points short of 0.5×`,
            ),
          ),
          row(
            `${what} vs fs.copyFile`,
            mbps(bytes, median(times.request)),
            mbps(bytes, median(times.copyFile)),
            ratio(vsCopy),
            '— (reported; see notes)',
          ),
        );
      }
    }
    const first = sources[0]!.file;
    let toolNameBytes = 0;
    let allBytes = 0;
    for (const line of fs.readFileSync(first, 'utf8').split('\n')) {
      if (!line) continue;
      const bytes = Buffer.byteLength(line) + 1;
      allBytes += bytes;
      if ('tool_name' in (JSON.parse(line) as object)) toolNameBytes += bytes;
    }
    notes.push(
      `How lines are checked and projected: each line's content string is checked with one scan of JSON's string grammar and the rest of the line parsed with a placeholder in its place, so a large content is never decoded; a line the provider takes as it is goes out as its bytes, and one that only loses members (\`tool_name\` on tool results for OpenAI, seed 000's field: ${percent(toolNameBytes / allBytes)} of the bytes here) goes out as its bytes minus those members. Only Ollama's assistant lines with tool calls are re-serialized (their arguments become objects), with the content still copied as bytes.`,
      'The goal is judged against the stream copy: like request building, it reads the file into user space and writes it back out, so the ratio measures what building adds (checking and projecting each line). `fs.copyFile` uses `copy_file_range` on Linux, a copy inside the kernel that never crosses into user space (and on copy-on-write file systems can share blocks without copying at all) — a floor no program that must look at the bytes can reach, reported for completeness.',
      "Every body was also checked once per provider (outside the timings): parsed back to see it is one valid JSON object with one message per line of current.jsonl, and at 1 GB (past V8's 512 MiB string limit, so not parsed) compared byte for byte with the 100 MB body with its messages ten times over, as the 1 GB context is the 100 MB one ten times over.",
    );
    return { rows, notes };
  },
};
