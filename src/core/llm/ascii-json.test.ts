import { describe, expect, it } from 'vitest';
import { asciiJson } from './ascii-json';

describe('asciiJson', () => {
  it('escapes every character outside ASCII and keeps the value', () => {
    const value = {
      d: 'a → b',
      e: 'é ü',
      j: '日本語',
      emoji: '🙂',
      lone: '\ud800x',
      ok: 'plain "q" \\',
    };
    const text = asciiJson(JSON.stringify(value));
    expect(text).toMatch(/^[\x20-\x7e]*$/);
    expect(JSON.parse(text)).toEqual(value);
    expect(asciiJson('"→"')).toBe('"\\u2192"');
    expect(asciiJson('"\u00e9"')).toBe('"\\u00e9"');
  });

  it('leaves ASCII text as it is', () => {
    const json = JSON.stringify({
      tools: [{ name: 'read_file', description: 'Reads "a" file.\n' }],
    });
    expect(asciiJson(json)).toBe(json);
  });
});
