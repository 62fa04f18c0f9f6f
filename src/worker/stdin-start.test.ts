import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readStartFromStdin } from './stdin-start';

const spec = { uuid: 'u', contextsRoot: '/c', mode: 'new' };

describe('readStartFromStdin (cwb run --detach)', () => {
  it('reads the start message to its end, in pieces, and closes stdin', async () => {
    const text = JSON.stringify({ type: 'start', spec, configEnv: { OPENAI_API_KEY: 'sk-x' } });
    const stdin = Readable.from([text.slice(0, 10), text.slice(10)]);
    const start = await readStartFromStdin(stdin);
    expect(start.configEnv).toEqual({ OPENAI_API_KEY: 'sk-x' });
    expect(start.spec).toMatchObject({ uuid: 'u', mode: 'new', prompt: '' });
    expect(stdin.destroyed).toBe(true);
  });

  it('refuses what is not a start message, with a clear error that does not echo the input', async () => {
    await expect(readStartFromStdin(Readable.from(['sk-secret-not-json']))).rejects.toThrow(
      /^the start message on stdin is not JSON$/,
    );
    await expect(
      readStartFromStdin(Readable.from([JSON.stringify({ type: 'pause' })])),
    ).rejects.toThrow('stdin did not hold a start message');
  });
});
