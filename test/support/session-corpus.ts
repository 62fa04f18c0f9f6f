import fs from 'node:fs';
import path from 'node:path';
import { realFixture } from './real-fixtures';

/**
 * A folder of 100 sessions of four agents (25 each of Claude Code, Codex, Gemini CLI and
 * OpenHands), derived from the real transcripts in test/fixtures/real: each copy moved to its
 * own start time over the last two months and its output tokens scaled, so the folder has
 * varied dates and costs like a person's. Two copies are placed on purpose: the `target`,
 * the most expensive session of the last 7 days, and a `decoy` more expensive still but 12
 * days old (a list sorted by cost without the date filter shows the decoy first).
 *
 * The copies change only times, ids and usage figures; text, tool calls and structure are
 * the fixtures' own. Claude Code's sub-agent side chains are left out so that one file is
 * one task (100 sessions, 100 rows).
 */
export interface CorpusSession {
  file: string;
  agent: 'claude-code' | 'codex' | 'gemini-cli' | 'openhands';
  /** When the session started (its first timestamp, moved). */
  start: Date;
  /** What its output tokens were multiplied by. */
  scale: number;
  role?: 'target' | 'decoy';
}

interface Template {
  agent: CorpusSession['agent'];
  source: string;
  /** The session's own id, replaced in each copy (agents key sessions by it). */
  id?: string;
  jsonl: boolean;
  name(start: Date, id: string, n: number): string;
}

const TEMPLATES: Template[][] = [
  [
    {
      agent: 'claude-code',
      source: realFixture('claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
      id: '5c0375b4-57a5-4f26-b12d-d022ee4e51b7',
      jsonl: true,
      name: (_s, id) => `${id}.jsonl`,
    },
  ],
  [
    {
      agent: 'codex',
      source: realFixture(
        'codex',
        'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
      ),
      id: '019e1695-0522-7c83-8b39-0dd379793f80',
      jsonl: true,
      name: (s, id) => `rollout-${s.toISOString().slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`,
    },
  ],
  ['session-2025-12-06T07-22-e0f194ce.json', 'session-2025-12-30T01-16-3f9ce747.json'].map(
    (file) => ({
      agent: 'gemini-cli' as const,
      source: realFixture('gemini-cli', file),
      jsonl: false,
      name: (s: Date, _id: string, n: number) =>
        `session-${s.toISOString().slice(0, 16).replace(/:/g, '-')}-${n}.json`,
    }),
  ),
  ['basic.json', 'basic_interactions.json', 'wrong_initial_state.json'].map((file) => ({
    agent: 'openhands' as const,
    source: realFixture('openhands', file),
    jsonl: false,
    name: (_s: Date, _id: string, n: number) => `openhands-${n}.json`,
  })),
];

/** The usage fields that count what the model wrote (Claude, Gemini, OpenAI-style). */
const OUTPUT = /^(output|output_tokens|completion_tokens|candidates_token_count)$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Writes the 100 sessions into `dir` and says what each is. Deterministic but for `now`. */
export function writeSessionCorpus(dir: string, now = Date.now()): CorpusSession[] {
  fs.mkdirSync(dir, { recursive: true });
  const random = mulberry32(16);
  const sessions: CorpusSession[] = [];
  for (let n = 0; n < 100; n++) {
    const group = TEMPLATES[n % 4]!;
    const template = group[Math.floor(n / 4) % group.length]!;
    let role: CorpusSession['role'];
    let daysAgo: number;
    let scale: number;
    if (n === 40) [role, daysAgo, scale] = ['target', 2, 30];
    else if (n === 44) [role, daysAgo, scale] = ['decoy', 12, 50];
    else {
      // Days 1-5 or 8 and later: never today (a session placed on today's date at 00:05
      // would end after now) and away from the edge of "the last 7 days" (today and the
      // six before), which a test running across midnight moves by a day.
      const d = Math.floor(random() * 58);
      daysAgo = d < 5 ? d + 1 : d + 3;
      scale = 0.2 + random() * 2.8;
    }
    const start = momentOnDay(now, daysAgo, random());
    const id = fakeUuid(random);
    const text = fs.readFileSync(template.source, 'utf8');
    const body = template.jsonl
      ? moveJsonl(text, start, scale, template.id, id)
      : `${JSON.stringify(moveValue(JSON.parse(text) as unknown, start, scale), null, 1)}\n`;
    const file = path.join(dir, template.name(start, id, n));
    fs.writeFileSync(file, body);
    sessions.push({ file, agent: template.agent, start, scale, ...(role && { role }) });
  }
  return sessions;
}

/**
 * A moment inside the local calendar day `daysAgo` days before `now`'s (between 10 % and
 * 90 % of it), so the day a session falls on, which the date filter reads, does not depend
 * on the hour the corpus is written. Counting back from `now` in hours did: written at
 * 00:05, a session "12 days ago" started on the 13th day back.
 */
function momentOnDay(now: number, daysAgo: number, fraction: number): Date {
  const today = new Date(now);
  const day = (back: number): number =>
    new Date(today.getFullYear(), today.getMonth(), today.getDate() - back).getTime();
  const start = day(daysAgo);
  return new Date(start + (0.1 + 0.8 * fraction) * (day(daysAgo - 1) - start));
}

function moveJsonl(text: string, start: Date, scale: number, oldId = '', newId = ''): string {
  const values = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(oldId ? line.split(oldId).join(newId) : line) as unknown)
    // One file, one task: Claude Code's sub-agent side chains become tasks of their own.
    .filter((v) => !(isObject(v) && v.isSidechain === true));
  const delta = start.getTime() - earliest(values);
  return `${values.map((v) => JSON.stringify(shift(v, delta, scale, false))).join('\n')}\n`;
}

function moveValue(value: unknown, start: Date, scale: number): unknown {
  return shift(value, start.getTime() - earliest([value]), scale, false);
}

/**
 * Every timestamp moved by `delta`; the output figures of every usage/tokens object scaled
 * (the input ones are left: they are the context's size, which must stay within the model's
 * window to read true).
 */
function shift(value: unknown, delta: number, scale: number, usage: boolean): unknown {
  if (typeof value === 'string' && ISO.test(value)) {
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(value);
    const moved = new Date(Date.parse(zoned ? value : `${value}Z`) + delta).toISOString();
    return zoned ? moved : moved.slice(0, -1);
  }
  if (Array.isArray(value)) return value.map((v) => shift(v, delta, scale, usage));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      usage && typeof v === 'number' && OUTPUT.test(k)
        ? Math.round(v * scale)
        : shift(v, delta, scale, usage || /^(usage|tokens)$/.test(k)),
    ]),
  );
}

function earliest(values: unknown[]): number {
  let min = Infinity;
  const visit = (v: unknown): void => {
    if (typeof v === 'string' && ISO.test(v)) {
      const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(v);
      min = Math.min(min, Date.parse(zoned ? v : `${v}Z`));
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (isObject(v)) Object.values(v).forEach(visit);
  };
  values.forEach(visit);
  return min;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fakeUuid(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** A small seeded generator: the same folder on every run. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
