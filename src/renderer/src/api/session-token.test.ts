import { describe, expect, it } from 'vitest';
import { takeSessionToken } from './session-token';

function memoryStorage(): Pick<Storage, 'getItem' | 'setItem'> & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
  };
}

describe('the session token', () => {
  it('is taken from the URL once, kept for the session, and removed from the address bar', () => {
    const storage = memoryStorage();
    const replaced: string[] = [];
    const history = {
      state: null,
      replaceState: (_s: unknown, _t: string, url?: string | URL | null) =>
        void replaced.push(String(url)),
    };
    expect(
      takeSessionToken({ href: 'http://127.0.0.1:4780/?token=abc&x=1#/t' }, history, storage),
    ).toBe('abc');
    expect(replaced).toEqual(['/?x=1#/t']);
    expect(takeSessionToken({ href: 'http://127.0.0.1:4780/' }, history, storage)).toBe('abc');
    expect(replaced).toHaveLength(1);
  });

  it('is null when there is none (the cookie may still carry the session)', () => {
    const history = { state: null, replaceState: () => undefined };
    expect(
      takeSessionToken({ href: 'http://127.0.0.1:4780/' }, history, memoryStorage()),
    ).toBeNull();
  });
});
