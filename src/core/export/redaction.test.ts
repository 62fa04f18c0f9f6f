import { describe, expect, it } from 'vitest';
import { describeRedactions, Redactor } from './redaction';

// Shaped like real credentials, built at run time so no scanner mistakes this file for a leak.
const fake = {
  anthropic: ['sk', 'ant', 'api03', 'Xy7Q2mZp0LkR9sT4vB8nW1cD6eF3gH5jK_aBcDeFgHiJkLmNoPq-AA'].join(
    '-',
  ),
  openai: ['sk', 'proj', 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'].join('-'),
  google: 'AIza' + 'SyD3x4mPl3K3y-0123456789abcdefghijk',
  github: 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  aws: 'AKIA' + 'IOSFODNN7EXAMPLE',
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY',
  slack: 'xoxb-' + '123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  bearer: 'eyJhbGciOiJIUzI1NiJ9.' + 'eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc123def456',
};

describe('Redactor', () => {
  it('replaces every published key shape and names what it replaced', () => {
    const r = new Redactor();
    const text = [
      `ANTHROPIC_API_KEY=${fake.anthropic}`,
      `export OPENAI_API_KEY="${fake.openai}"`,
      `key=${fake.google}&q=1`,
      `git clone https://${fake.github}@github.com/o/r`,
      `aws_access_key_id = ${fake.aws}`,
      `aws_secret_access_key = ${fake.awsSecret}`,
      `SLACK=${fake.slack}`,
      `curl -H "Authorization: Bearer ${fake.bearer}"`,
    ].join('\n');
    const out = r.redact(text);
    for (const secret of Object.values(fake)) expect(out).not.toContain(secret);
    expect(out).toContain('ANTHROPIC_API_KEY=[REDACTED:anthropic-key]');
    expect(out).toContain('Authorization: Bearer [REDACTED:bearer-token]');
    expect(out).toContain('aws_secret_access_key = [REDACTED:aws-key]');
    const one = { places: 1, secrets: 1 };
    expect(r.counts).toEqual({
      'anthropic-key': one,
      'openai-key': one,
      'google-key': one,
      'github-token': one,
      'aws-key': { places: 2, secrets: 2 },
      'slack-token': one,
      'bearer-token': one,
    });
  });

  it('removes a private key whole, with or without its END line, also JSON-escaped', () => {
    const body = 'MIIEowIBAAKCAQEA7Zq3\nQk9v2Lr8+/Zx0Y1w==';
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`;
    const r = new Redactor();
    expect(r.redact(`key:\n${pem}\ndone`)).toBe('key:\n[REDACTED:private-key]\ndone');
    const escaped = JSON.stringify({ content: `cat id\n${pem}` });
    const out = r.redact(escaped);
    expect(JSON.parse(out)).toEqual({ content: 'cat id\n[REDACTED:private-key]' });
    expect(r.redact(`-----BEGIN OPENSSH PRIVATE KEY-----\n${body}`)).toBe('[REDACTED:private-key]');
  });

  it('leaves ordinary text alone: kebab-case names, short words, hashes', () => {
    const r = new Redactor();
    const text =
      'task-management-system-design-doc, desk-123, sk-learn, ' +
      'commit 4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f, Bearer of bad news';
    expect(r.redact(text)).toBe(text);
    expect(r.total).toBe(0);
  });

  it('replaces known secret values, raw and JSON-escaped, before patterns', () => {
    const secret = 'hunter2-very/secret"value';
    const r = new Redactor({ secrets: [secret] });
    const out = r.redact(`pw=${secret} json=${JSON.stringify(secret)}`);
    expect(out).not.toContain('hunter2');
    expect(r.counts['configured-secret']).toEqual({ places: 2, secrets: 1 });
  });

  it('shows home folders as ~ only when asked', () => {
    const text = 'edit /home/alice/src/app.ts and /Users/bob/x.md, C:\\Users\\carol\\notes.txt';
    expect(new Redactor().redact(text)).toBe(text);
    const r = new Redactor({ homeFolders: { home: '/srv/me' } });
    expect(r.redact(`${text} /srv/me/y`)).toBe('edit ~/src/app.ts and ~/x.md, ~\\notes.txt ~/y');
    expect(r.counts['home-folder']).toEqual({ places: 4, secrets: 4 });
    // A URL's path is not a home folder.
    expect(r.redact('see https://example.com/home/about')).toBe(
      'see https://example.com/home/about',
    );
  });

  it('knows a key it has seen when only a piece of it turns up later, or was read ahead', () => {
    const r = new Redactor();
    expect(r.redact(`key ${fake.anthropic}`)).toBe('key [REDACTED:anthropic-key]');
    // The fact ledger lists a key's dash-separated runs as identifiers.
    const piece = fake.anthropic.split('-')[3]!;
    expect(r.redact(`Identifiers: ${piece}, Next.js`)).toBe(
      'Identifiers: [REDACTED:anthropic-key], Next.js',
    );
    expect(r.counts['anthropic-key']).toEqual({ places: 2, secrets: 1 });
    const ahead = new Redactor();
    ahead.learn(`later: ${fake.anthropic}`);
    expect(ahead.total).toBe(0);
    expect(ahead.redact(`first ${piece}`)).toBe('first [REDACTED:anthropic-key]');
    // A fresh one knows the same secrets and has counted nothing.
    const again = ahead.fresh();
    expect(again.total).toBe(0);
    expect(again.redact(piece)).toBe('[REDACTED:anthropic-key]');
  });

  it('says what was redacted in words', () => {
    expect(describeRedactions({})).toBeNull();
    expect(
      describeRedactions({
        'anthropic-key': { places: 5, secrets: 1 },
        'bearer-token': { places: 2, secrets: 2 },
      }),
    ).toBe('1 Anthropic API key (in 5 places), 2 bearer tokens');
    expect(describeRedactions({ 'home-folder': { places: 3, secrets: 1 } })).toBe(
      'home folders in 3 places',
    );
  });
});
