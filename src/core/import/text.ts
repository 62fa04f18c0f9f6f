import { isoTimestamp } from '../iso-timestamp';

/**
 * Small, total helpers for text found in transcripts: every input is untrusted JSON, so
 * each one accepts `unknown` and never throws.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** An ISO timestamp normalized to `toISOString()` form (tasks.db sorts them as text), or undefined. */
export function normalizeTimestamp(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  // A mapper asks for the same entry's time several times in a row (its row, its message).
  if (value === lastTimestamp.value) return lastTimestamp.normalized;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  const date = new Date(ms);
  const normalized =
    !Number.isFinite(ms) || Number.isNaN(date.getTime()) ? undefined : isoTimestamp(date);
  lastTimestamp.value = value;
  lastTimestamp.normalized = normalized;
  return normalized;
}

const lastTimestamp: { value: string | number | undefined; normalized: string | undefined } = {
  value: undefined,
  normalized: undefined,
};

/**
 * A timestamp written without a zone (OpenHands' `datetime.now().isoformat()`, Aider's
 * "2024-08-05 19:33:02") read as UTC, so an import gives the same times on every machine.
 */
export function naiveUtcTimestamp(value: unknown): string | undefined {
  if (typeof value !== 'string') return normalizeTimestamp(value);
  const t = value.trim().replace(' ', 'T');
  const zoned = /(Z|[+-]\d\d:?\d\d)$/i.test(t);
  // Date.parse takes at most milliseconds; Python writes microseconds.
  const trimmed = t.replace(/(\.\d{3})\d+/, '$1');
  return normalizeTimestamp(zoned || !/T\d/.test(trimmed) ? trimmed : `${trimmed}Z`);
}

/** Milliseconds between two normalized timestamps, 0 when either is missing or they go backwards. */
export function durationBetween(start: string | undefined, end: string | undefined): number {
  if (!start || !end) return 0;
  return Math.max(0, Date.parse(end) - Date.parse(start));
}

/**
 * The text of a content value as agents write it: a string, or a list of parts
 * (`{type: 'text', text}`, `{type: 'input_text', text}`, images, ...). Non-text parts
 * become a short placeholder so the reader sees that something was there.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) return isRecord(content) ? partText(content) : String(content);
  return content
    .map((part) => (isRecord(part) ? partText(part) : typeof part === 'string' ? part : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function partText(part: Record<string, unknown>): string {
  const text = asString(part.text);
  if (text !== undefined) return text;
  const type = asString(part.type) ?? 'part';
  if (type.includes('image')) return '[image]';
  if (typeof part.content === 'string' || Array.isArray(part.content))
    return contentText(part.content);
  return `[${type}]`;
}

/** Tool-call arguments as a JSON string (OpenAI's wire form), whatever the source held. */
export function argumentsString(args: unknown): string {
  if (typeof args === 'string') return args;
  return JSON.stringify(args ?? {});
}

/** Tool-call arguments as data for tools.jsonl: parsed when they are JSON, else the raw text. */
export function argumentsValue(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A one-line title from the first meaningful line of a text (tags such as `<command-name>` removed). */
export function titleFrom(text: string | undefined, max = 100): string | undefined {
  if (!text) return undefined;
  const command = /<command-name>([^<]*)<\/command-name>/.exec(text)?.[1]?.trim();
  if (command) {
    const args = /<command-args>([^<]*)<\/command-args>/.exec(text)?.[1]?.trim() ?? '';
    return clip(`${command} ${args}`.trim().replace(/\s+/g, ' '), max);
  }
  const line = text
    .replace(/<[^>\n]{1,80}>/g, ' ')
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .find((l) => l !== '');
  return line ? clip(line, max) : undefined;
}

/** The prompt column holds the start of the first user message, not a whole pasted file. */
export const PROMPT_MAX_CHARS = 8000;

/**
 * A file's own times standing in for a session's when its format records none: created at
 * its birth time (its modification time where the file system has none), ended when last written.
 */
export function fileTimes(stat: { birthtimeMs: number; birthtime: Date; mtime: Date }): {
  created_at: string;
  completed_at: string;
} {
  const born = stat.birthtimeMs > 0 && stat.birthtime <= stat.mtime ? stat.birthtime : stat.mtime;
  return { created_at: isoTimestamp(born), completed_at: isoTimestamp(stat.mtime) };
}
