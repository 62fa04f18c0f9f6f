/**
 * Hostile input (issue 9): IPC and HTTP payloads. Every operation of the workbench contract
 * (src/shared/api, the one both Electron IPC and `cwb serve` validate with) gets random
 * payloads — anything at all, and near-misses built from the operation's own keys — and:
 * - validateInput never throws, and a refusal is a bad_input naming the offending field;
 * - WorkbenchService.invoke never rejects and never answers an internal error;
 * - `cwb serve`'s HTTP host answers random JSON bodies, random bytes and random operation
 *   names with the envelope and a 2xx/4xx status, never a 500 or a dropped connection.
 * Everything runs against a temporary contexts root; task processes are faked (a "process"
 * that exits at once), so no payload can start real work.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKBENCH_CONTRACT } from '../../src/shared/api/contract';
import { OPERATION_NAMES, type OperationName } from '../../src/shared/api/operation-names';
import { validateInput } from '../../src/shared/api/validate-input';
import { isApiResult, type ApiResult } from '../../src/shared/api/api-result';
import {
  createWorkbenchService,
  type WorkbenchService,
} from '../../src/core/api/workbench-service';
import type { ForkWorker } from '../../src/core/supervisor/worker-handle';
import { startWebHost, type WebHost } from '../../src/core/web/web-host';
import { ContextStore } from '../../src/core/store/context-store';
import { rawRequest } from '../support/raw-http';

/** A task "process" that exits at once with code 2 (it never ran). */
const fakeFork: ForkWorker = () => ({
  pid: undefined,
  send: () => undefined,
  onMessage: () => undefined,
  onExit: (listener) => void setTimeout(() => listener(2, null), 5),
  kill: () => undefined,
});

let base: string;
let known: string;
let service: WorkbenchService;
let host: WebHost;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-hostile-api-'));
  const root = path.join(base, 'contexts');
  const store = ContextStore.open(root);
  const task = store.createTask({ title: 'target', workdir: base });
  task.addMessage({ role: 'system', content: 'sys' });
  for (let i = 0; i < 6; i++)
    task.addMessage({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` });
  await task.stop();
  known = task.uuid;
  store.close();
  fs.writeFileSync(
    path.join(base, 'config.yaml'),
    'llm:\n  provider: ollama\n  ollama:\n    model: qwen3:8b\n    base_url: http://127.0.0.1:9\n',
  );
  service = createWorkbenchService({
    contextsRoot: root,
    configFile: path.join(base, 'config.yaml'),
    fork: fakeFork,
    host: { kind: 'serve', version: 'test', versions: {} },
    exportDir: path.join(base, 'exports'),
    env: { HOME: base, XDG_CONFIG_HOME: path.join(base, 'xdg') },
  });
  host = await startWebHost({ service, rendererRoot: null, port: 0 });
});

afterAll(async () => {
  await host?.close();
  await service?.close(100);
  fs.rmSync(base, { recursive: true, force: true });
});

/** Values that hit edges: wrong types, huge numbers, prototype keys, our own task id. */
function edgeValues(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(
      known,
      0,
      -1,
      1.5,
      1e308,
      Number.MAX_SAFE_INTEGER + 2,
      '',
      '__proto__',
      'constructor',
      'a\u0000b',
      '/',
      true,
      null,
      [],
      {},
    ),
    fc.integer({ min: -5, max: 2000 }),
    fc.string({ maxLength: 20 }),
    // Paths for the operations that take them: only inside the temporary folder.
    fc.constantFrom('out', 'x.md', 'nope.json').map((name) => path.join(base, 'exports', name)),
  );
}

/** Objects over an operation's own keys (so validation gets past the first field) plus strays. */
function nearMiss(name: OperationName): fc.Arbitrary<unknown> {
  const schema: z.ZodType = WORKBENCH_CONTRACT[name].input;
  const keys =
    schema instanceof z.ZodObject ? Object.keys(schema.shape as Record<string, unknown>) : [];
  // Mostly the right kind of value for the key, so payloads get past validation and into
  // the handlers; the rest of the time anything.
  const valueFor = (k: string): fc.Arbitrary<unknown> => {
    const likely: Record<string, fc.Arbitrary<unknown>> = {
      uuid: fc.constant(known),
      uuids: fc.constant([known]),
      format: fc.constantFrom('archive', 'markdown', 'openai', 'auto'),
      view: fc.constantFrom('history', 'current'),
      query: fc.string({ minLength: 1, maxLength: 5 }),
      ref: fc.string({ maxLength: 12 }),
      strategies: fc.array(
        fc.constantFrom('truncate', 'extractive', 'summarize', 'condense', 'nope'),
        { maxLength: 2 },
      ),
      pipeline: fc.array(fc.constantFrom('truncate', 'extractive', 'condense', 'nope'), {
        maxLength: 2,
      }),
    };
    return fc.oneof(
      { weight: 3, arbitrary: likely[k] ?? fc.integer({ min: -2, max: 12 }) },
      { weight: 2, arbitrary: edgeValues() },
    );
  };
  if (!keys.length) return fc.dictionary(fc.string({ maxLength: 8 }), edgeValues(), { maxKeys: 2 });
  return fc
    .tuple(
      fc.subarray(keys),
      fc.dictionary(fc.string({ maxLength: 8 }), edgeValues(), { maxKeys: 1 }),
      fc.boolean(),
    )
    .chain(([chosen, stray, addStray]) =>
      fc.tuple(...chosen.map((k) => valueFor(k))).map((values) => ({
        ...Object.fromEntries(chosen.map((k, i) => [k, values[i]])),
        ...(addStray ? stray : {}),
      })),
    );
}

function payloadFor(name: OperationName): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: nearMiss(name) },
    { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
  );
}

const operation = fc.constantFrom(...OPERATION_NAMES);

/**
 * exportTasks with an `output` writes a file wherever it says; the generators only ever
 * put one inside the temporary folder, and this guard keeps it that way.
 */
function safe(name: OperationName, payload: unknown): boolean {
  const text = JSON.stringify(payload) ?? '';
  if (name === 'exportTasks' && /"output"/.test(text))
    return text.includes(JSON.stringify(path.join(base, 'exports')).slice(1, -1));
  return true;
}

describe('hostile workbench API payloads', () => {
  it('validateInput: every operation, random payloads: never throws; a refusal is bad_input naming the field', () => {
    fc.assert(
      fc.property(
        operation.chain((name) => fc.tuple(fc.constant(name), payloadFor(name))),
        ([name, payload]) => {
          const result = validateInput(name, payload);
          if (result.ok) return;
          expect(result.error.code).toBe('bad_input');
          expect(result.error.message.startsWith(`${name}: `)).toBe(true);
          if (result.error.field !== undefined)
            expect(result.error.message).toContain(result.error.field);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('WorkbenchService.invoke: every operation, random payloads: always the envelope, never an internal error', async () => {
    const internal: string[] = [];
    const answered = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        operation.chain((name) => fc.tuple(fc.constant(name), payloadFor(name))),
        async ([name, payload]) => {
          fc.pre(safe(name, payload));
          const result = await service.invoke(name, payload);
          expect(isApiResult(result)).toBe(true);
          if (result.ok) answered.add(name);
          if (!result.ok && result.error.code === 'internal')
            internal.push(`${name} ${JSON.stringify(payload)}: ${result.error.message}`);
        },
      ),
      { numRuns: 400 },
    );
    expect(internal).toEqual([]);
    // The payloads reach the handlers, not only the validation.
    expect(answered.size, [...answered].join(', ')).toBeGreaterThanOrEqual(5);
  }, 60_000);

  it('random operation names: not_found, never a throw', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ maxLength: 100 })
          .filter((s) => !(OPERATION_NAMES as readonly string[]).includes(s)),
        async (name) => {
          const result = await service.invoke(name, {});
          expect(result).toMatchObject({ ok: false, error: { code: 'not_found' } });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('hostile HTTP requests to `cwb serve` (authenticated, so they reach the API)', () => {
  const headers = (): Record<string, string> => ({
    'Content-Type': 'application/json',
    Authorization: `Bearer ${host.token}`,
  });

  it('random JSON bodies to every operation: the envelope with 200 or a 4xx, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        operation.chain((name) => fc.tuple(fc.constant(name), payloadFor(name))),
        async ([name, payload]) => {
          fc.pre(safe(name, payload));
          const body = JSON.stringify(payload) ?? 'null';
          const res = await rawRequest(host.port, {
            method: 'POST',
            path: `/api/${name}`,
            headers: headers(),
            body,
          });
          expect(res.status, `${name} ${body}: ${res.body}`).toBeLessThan(500);
          const parsed = JSON.parse(res.body) as ApiResult<unknown>;
          expect(isApiResult(parsed)).toBe(true);
          expect(res.status === 200).toBe(parsed.ok);
        },
      ),
      { numRuns: 300 },
    );
  }, 60_000);

  it('random bytes, random paths and random methods: a 4xx envelope, never a 500 or a dropped connection', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.oneof(
          operation.map((n) => `/api/${n}`),
          fc.string({ maxLength: 30 }).map((s) => `/api/${encodeURIComponent(s)}`),
          fc.constantFrom('/api', '/api/', '/api/../api/getTask', '/api/%00', '/api/getTask?x=1'),
        ),
        fc.constantFrom('POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
        async (body, urlPath, method) => {
          const res = await rawRequest(host.port, {
            method,
            path: urlPath,
            headers: headers(),
            body,
          });
          expect(res.status, `${method} ${urlPath}: ${res.body}`).toBeLessThan(500);
          expect(res.status).toBeGreaterThanOrEqual(200);
          if (res.status !== 200) expect(isApiResult(JSON.parse(res.body) as unknown)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  }, 60_000);
});
