import { describe, expect, it } from 'vitest';
import { MemberOmitter, memberSpan } from './member-span';

const KEY = Buffer.from('"toolUseResult"');

/** The text memberSpan leaves of `json` (the whole text when it finds nothing to cut). */
function cut(json: string): string {
  const bytes = Buffer.from(json);
  const span = memberSpan(bytes, 0, bytes.length, KEY);
  if (!span) return json;
  return bytes.toString('utf8', 0, span[0]) + bytes.toString('utf8', span[1]);
}

describe('memberSpan', () => {
  it('cuts the top-level member wherever it stands, with one comma beside it', () => {
    const value = '{"stdout":"ok","lines":["a","b"],"n":[1,{"x":null}]}';
    expect(cut(`{"a":1,"toolUseResult":${value},"b":"c"}`)).toBe('{"a":1,"b":"c"}');
    expect(cut(`{"a":1,"toolUseResult":${value}}`)).toBe('{"a":1}');
    expect(cut(`{"toolUseResult":${value},"b":2}`)).toBe('{"b":2}');
    expect(cut(`{"toolUseResult":"only"}`)).toBe('{}');
    expect(cut(`{"toolUseResult":true,"b":2}`)).toBe('{"b":2}');
    expect(cut(`{ "a" : 1 , "toolUseResult" : [ 1 , 2 ] , "b" : 2 }\r`)).toBe(
      '{ "a" : 1 , "b" : 2 }\r',
    );
  });

  it('never cuts a member of the same name below the top level, nor the name as a value', () => {
    const nested =
      '{"message":{"toolUseResult":{"a":1}},"b":["toolUseResult"],"c":"toolUseResult"}';
    expect(cut(nested)).toBe(nested);
    expect(cut(`{"m":{"toolUseResult":1},"toolUseResult":2,"z":3}`)).toBe(
      '{"m":{"toolUseResult":1},"z":3}',
    );
  });

  it('follows strings through escaped quotes and backslashes, short and long', () => {
    const tricky = [
      'say \\"toolUseResult\\":1 and }]{[',
      '\\\\',
      'a\\\\\\"b',
      `${'x'.repeat(100)}\\"},\\"toolUseResult\\":{\\"fake\\":1}${'y'.repeat(100)}`,
      '日本語 \\u005c 😀',
    ];
    for (const s of tricky) {
      const line = `{"text":"${s}","toolUseResult":{"s":"${s}"},"after":"${s}"}`;
      const left = cut(line);
      expect(JSON.parse(left)).toEqual({ text: JSON.parse(`"${s}"`), after: JSON.parse(`"${s}"`) });
    }
  });

  it('cuts nothing from bytes that are not one whole object', () => {
    for (const bad of [
      '{"a":1,"toolUseResult":{"x":"unterminated}',
      '{"a":1,"toolUseResult":{"x":1}',
      '{"a":1,"toolUseResult":2}}',
      '{"a":1,"toolUseResult":2} trailing',
      '["toolUseResult",{"toolUseResult":1}]',
      '{"a":1,"toolUseResult":2]',
      '',
    ])
      expect(cut(bad)).toBe(bad);
  });

  it('reads only its window of a larger buffer', () => {
    const before = '{"toolUseResult":1}\n';
    const line = '{"a":1,"toolUseResult":{"b":2}}';
    const bytes = Buffer.from(`${before}${line}\n{"toolUseResult":3}`);
    const start = before.length;
    const span = memberSpan(bytes, start, start + line.length, KEY)!;
    expect(
      bytes.toString('utf8', start, span[0]) + bytes.toString('utf8', span[1], start + line.length),
    ).toBe('{"a":1}');
  });
});

describe('MemberOmitter', () => {
  it('decodes each line of a buffer without the member, and says which line it cut', () => {
    const lines = [
      '{"type":"user","toolUseResult":{"out":"日本"}}',
      '{"type":"assistant"}',
      '{"type":"user","toolUseResult":"x"}',
    ];
    const bytes = Buffer.from(lines.join('\n'));
    const omitter = new MemberOmitter('toolUseResult');
    let start = 0;
    const texts: string[] = [];
    const wholes: (string | undefined)[] = [];
    for (const line of lines) {
      const end = start + Buffer.byteLength(line);
      texts.push(omitter.decode(bytes, start, end));
      wholes.push(omitter.lastWhole());
      start = end + 1;
    }
    expect(texts).toEqual(['{"type":"user"}', '{"type":"assistant"}', '{"type":"user"}']);
    expect(wholes).toEqual([lines[0], undefined, lines[2]]);
  });
});
