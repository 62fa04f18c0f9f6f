import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../shared/api/api-result';
import { OPERATION_NAMES } from '../../../shared/api/operation-names';
import { createHttpClient } from './http-client';

interface Sent {
  url: string;
  init: RequestInit;
}

function fakeFetch(answer: (sent: Sent) => { status: number; body: unknown }): {
  fetch: typeof fetch;
  sent: Sent[];
} {
  const sent: Sent[] = [];
  return {
    sent,
    fetch: async (input, init) => {
      const s = { url: String(input), init: init ?? {} };
      sent.push(s);
      const { status, body } = answer(s);
      return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
    },
  };
}

const noEvents = () => () => undefined;

describe('the HTTP transport', () => {
  it('has every operation and posts JSON with the token to /api/<operation>', async () => {
    const f = fakeFetch(() => ({ status: 200, body: { ok: true, value: { total: 0 } } }));
    const api = createHttpClient({ token: 'tok', fetch: f.fetch, events: noEvents });
    for (const name of OPERATION_NAMES) expect(typeof api[name]).toBe('function');
    await expect(api.queryTasks({ limit: 5 })).resolves.toEqual({ total: 0 });
    expect(f.sent[0]!.url).toBe('/api/queryTasks');
    expect(f.sent[0]!.init.method).toBe('POST');
    expect(f.sent[0]!.init.headers).toMatchObject({
      'Content-Type': 'application/json',
      Authorization: 'Bearer tok',
    });
    expect(f.sent[0]!.init.body).toBe('{"limit":5}');
    await api.appInfo();
    expect(f.sent[1]!.init.body).toBe('{}');
  });

  it('turns an error envelope into an ApiError with its code and field', async () => {
    const f = fakeFetch(() => ({
      status: 400,
      body: {
        ok: false,
        error: { code: 'bad_input', message: 'getTask: uuid: bad', field: 'uuid' },
      },
    }));
    const api = createHttpClient({ token: null, fetch: f.fetch, events: noEvents });
    const err = await api.getTask({ uuid: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_input', field: 'uuid', message: 'getTask: uuid: bad' });
    expect(f.sent[0]!.init.headers).not.toHaveProperty('Authorization');
  });

  it('reports answers that are not the envelope, and unreachable servers, as transport errors', async () => {
    const html = fakeFetch(() => ({ status: 502, body: '<html>bad gateway</html>' }));
    const api = createHttpClient({ token: 't', fetch: html.fetch, events: noEvents });
    await expect(api.appInfo()).rejects.toMatchObject({ code: 'transport' });
    const down = createHttpClient({
      token: 't',
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
      events: noEvents,
    });
    await expect(down.appInfo()).rejects.toMatchObject({
      code: 'transport',
      message: expect.stringMatching(/cannot reach/),
    });
  });
});
