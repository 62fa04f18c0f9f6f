import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_INLINE_BYTES } from './output-limits';
import { useToolFixture } from './test-support/tool-context';
import {
  MIN_SCRUBBED_SECRET_LENGTH,
  scrubCutTail,
  scrubToolResult,
  scrubToolText,
  toolResultSecrets,
} from './tool-secrets';

const KEY = 'sk-test-0123456789abcdef0123456789abcdef';
/** A key with characters JSON and URLs escape. */
const ODD_KEY = 'k/ey"with\\odd+chars=';

/** Every piece of `key` at least `min` long that occurs in `text`. */
function fragmentsIn(text: string, key: string, min = MIN_SCRUBBED_SECRET_LENGTH): string[] {
  const found: string[] = [];
  for (let start = 0; start + min <= key.length; start++) {
    const piece = key.slice(start, start + min);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

describe('toolResultSecrets', () => {
  it('adds the JSON-escaped and URL-encoded forms, longest first, and skips short values', () => {
    const forms = toolResultSecrets([KEY, ODD_KEY, 'lm', 'test', '']);
    expect(forms).toContain(KEY);
    expect(forms).toContain(ODD_KEY);
    expect(forms).toContain('k/ey\\"with\\\\odd+chars='); // JSON
    expect(forms).toContain('k\\/ey\\"with\\\\odd+chars='); // JSON with "\/"
    expect(forms).toContain(encodeURIComponent(ODD_KEY));
    expect(forms).not.toContain('lm');
    expect(forms).not.toContain('test');
    expect(forms.map((f) => f.length)).toEqual(
      [...forms.map((f) => f.length)].sort((a, b) => b - a),
    );
  });
});

describe('scrubToolText', () => {
  const ctx = { secretValues: [KEY, ODD_KEY] };

  it('removes a key printed plainly, inside JSON, JSON-escaped and URL-encoded', () => {
    const text = [
      `OPENAI_API_KEY=${KEY}`,
      JSON.stringify({ env: { key: ODD_KEY } }),
      `curl 'https://x.example/?key=${encodeURIComponent(ODD_KEY)}'`,
      JSON.stringify(ODD_KEY).replaceAll('/', '\\/'),
    ].join('\n');
    const out = scrubToolText(text, ctx);
    expect(out).toBe(
      [
        'OPENAI_API_KEY=***',
        '{"env":{"key":"***"}}',
        "curl 'https://x.example/?key=***'",
        '"***"',
      ].join('\n'),
    );
  });

  it('leaves text alone for short "secrets" (placeholder keys would blank out common words)', () => {
    const text = 'npm test\nlm studio\n1 passed';
    expect(scrubToolText(text, { secretValues: ['test', 'lm', '1'] })).toBe(text);
    expect(scrubToolText(text, {})).toBe(text);
  });
});

describe('scrubCutTail', () => {
  it('removes the start of a key left at the end of a cut output, and nothing else', () => {
    const ctx = { secretValues: [KEY] };
    expect(scrubCutTail(`a\nOPENAI_API_KEY=${KEY.slice(0, 20)}`, ctx)).toBe(
      'a\nOPENAI_API_KEY=***',
    );
    // Fewer characters than a scrubbed secret: not worth blanking "sk-" from every cut output.
    expect(scrubCutTail(`a\n${KEY.slice(0, 3)}`, ctx)).toBe(`a\n${KEY.slice(0, 3)}`);
    expect(scrubCutTail('a\nb', ctx)).toBe('a\nb');
  });
});

describe('scrubToolResult', () => {
  it('scrubs content and error, and returns the same object when there is nothing to scrub', () => {
    const ctx = { secretValues: [KEY] };
    const result = scrubToolResult(
      { content: `Error: bad ${KEY}`, status: 'error', error: `bad ${KEY}` },
      ctx,
    );
    expect(result).toEqual({ content: 'Error: bad ***', status: 'error', error: 'bad ***' });
    const clean = { content: 'ok', status: 'success' as const };
    expect(scrubToolResult(clean, ctx)).toBe(clean);
  });
});

describe('executeTool keeps secrets out of every result', () => {
  const fixture = useToolFixture();

  it('read_file, grep and run_command on a file holding the key', async () => {
    const f = fixture();
    f.write('settings.env', `OPENAI_API_KEY=${KEY}\nOTHER=1\n`);
    const ctx = { secretValues: [KEY] };
    const results = [
      await f.call('read_file', { path: 'settings.env' }, ctx),
      await f.call('grep', { pattern: 'API_KEY' }, ctx),
      await f.call('run_command', { command: 'cat settings.env; echo "$OPENAI_API_KEY" >&2' }, ctx),
    ];
    expect(results[0]!.content).toContain('OPENAI_API_KEY=***');
    expect(results[2]!.content).toContain('OPENAI_API_KEY=***');
    for (const result of results) expect(JSON.stringify(result)).not.toContain(KEY);
  });

  it('a failing command: the error line and content are scrubbed too', async () => {
    const f = fixture();
    f.write('key.txt', KEY);
    const result = await f.call(
      'run_command',
      { command: 'cat key.txt; exit 3' },
      { secretValues: [KEY] },
    );
    expect(result.status).toBe('error');
    expect(result.content).toBe('***\nexit code 3');
  });

  it('a large output: no fragment of a key cut by the shortened view, none in tool_outputs/', async () => {
    const f = fixture();
    // The key straddles the end of the head the model sees (20 KiB, no line break near).
    const head = 'x'.repeat(20 * 1024 - 10);
    const big = `${head}${KEY}${'y'.repeat(MAX_INLINE_BYTES)}${KEY}\n`;
    f.write('big.txt', big);
    const result = await f.call('run_command', { command: 'cat big.txt' }, { secretValues: [KEY] });
    expect(result.outputRef).toBeDefined();
    expect(fragmentsIn(result.content, KEY)).toEqual([]);
    const saved = fs.readdirSync(path.join(f.taskDir, 'tool_outputs'));
    expect(saved.length).toBe(1);
    const whole = fs.readFileSync(path.join(f.taskDir, 'tool_outputs', saved[0]!), 'utf8');
    expect(whole).not.toContain(KEY);
    expect(whole).toContain(`${head}***`);
    // Read back through the cache tool: still nothing.
    const back = await f.call('tool_output_cache', { ref_id: result.outputRef }, {});
    expect(back.content).not.toContain(KEY);
  });
});
