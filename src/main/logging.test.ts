import { describe, expect, it, vi } from 'vitest';
import type { MainLogger } from 'electron-log';
import { setupLogging } from './logging';

type Hook = (m: { data: unknown[] }) => { data: unknown[] };

/** An electron-log stand-in that keeps the hooks setupLogging installs. */
function fakeLogger(): { log: MainLogger; hooks: Hook[] } {
  const hooks: Hook[] = [];
  const log = {
    transports: { file: { level: 'debug' }, console: { level: 'debug' } },
    hooks,
    errorHandler: { startCatching: vi.fn() },
  } as unknown as MainLogger;
  return { log, hooks };
}

describe('logging', () => {
  it('scrubs the config secrets from every message before a transport sees it', () => {
    const { log, hooks } = fakeLogger();
    setupLogging(log, () => ['sk-live-123']);
    const out = hooks[0]!({
      data: ['calling with sk-live-123', 42, new Error('bad key sk-live-123')],
    });
    expect(JSON.stringify(out.data)).not.toContain('sk-live-123');
    expect(out.data[0]).toBe('calling with ***');
    expect(out.data[1]).toBe(42);
  });

  it('also scrubs a secret JSON-escaped, URL-encoded or inside a logged object', () => {
    const { log, hooks } = fakeLogger();
    const key = 'sk/live"key+1';
    setupLogging(log, () => [key]);
    const out = hooks[0]!({
      data: [
        `body ${JSON.stringify({ key })}`,
        `url ?k=${encodeURIComponent(key)}`,
        { request: { headers: { authorization: `Bearer ${key}` } } },
        { harmless: true },
      ],
    });
    expect(out.data[0]).toBe('body {"key":"***"}');
    expect(out.data[1]).toBe('url ?k=***');
    expect(out.data[2]).toContain('Bearer ***');
    expect(out.data[3]).toEqual({ harmless: true });
  });
});
