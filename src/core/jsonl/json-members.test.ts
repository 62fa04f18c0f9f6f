import { describe, expect, it } from 'vitest';
import { objectMembers, withoutMembers } from './json-members';

function keys(text: string): string[] {
  return objectMembers(Buffer.from(text)).map((m) => m.rawKey.toString());
}

function drop(text: string, ...names: string[]): string {
  const bytes = Buffer.from(text);
  const members = objectMembers(bytes);
  const indexes = new Set(
    members.flatMap((m, i) => (names.includes(m.rawKey.toString()) ? [i] : [])),
  );
  return Buffer.concat(withoutMembers(bytes, members, indexes)).toString();
}

describe('objectMembers', () => {
  it('finds each top-level member, whatever its strings and nesting hold', () => {
    const line = JSON.stringify({
      role: 'tool',
      content: 'ends with a backslash \\ and "quotes", "tool_name":"fake", {braces} [x]',
      tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{"x":"}]"}' } }],
      n: -1.5e3,
      ok: true,
      none: null,
      tool_name: 'read_file',
    });
    expect(keys(line)).toEqual(['role', 'content', 'tool_calls', 'n', 'ok', 'none', 'tool_name']);
    const bytes = Buffer.from(line);
    for (const member of objectMembers(bytes)) {
      // Each range is exactly `"key":value`.
      const text = bytes.subarray(member.start, member.end).toString();
      expect(JSON.parse(`{${text}}`)).toEqual({
        [member.rawKey.toString()]: (JSON.parse(line) as Record<string, unknown>)[
          member.rawKey.toString()
        ],
      });
    }
  });

  it('copes with a string whose last character is an escaped backslash, and with spaces', () => {
    expect(keys('{ "a" : "x\\\\" , "b":"\\"" ,"c" : [ ] }')).toEqual(['a', 'b', 'c']);
    expect(keys('{}')).toEqual([]);
  });
});

describe('withoutMembers', () => {
  it('leaves out members at the start, middle and end, and keeps a valid object', () => {
    const line = '{"tool_name":"t","role":"tool","x":1,"content":"c","tool_name2":2}';
    expect(JSON.parse(drop(line, 'tool_name'))).toEqual({
      role: 'tool',
      x: 1,
      content: 'c',
      tool_name2: 2,
    });
    expect(drop(line, 'x', 'tool_name2')).toBe('{"tool_name":"t","role":"tool","content":"c"}');
    expect(drop(line, 'tool_name', 'role', 'x', 'content', 'tool_name2')).toBe('{}');
    expect(drop(line)).toBe(line);
  });
});
