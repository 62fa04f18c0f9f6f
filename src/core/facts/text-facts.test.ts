import { describe, expect, it } from 'vitest';
import {
  findErrorLines,
  findIdentifiers,
  findNumbers,
  findPaths,
  findUrls,
  isPath,
} from './text-facts';

describe('paths', () => {
  it('finds rooted paths, folder trees and file names', () => {
    expect(
      findPaths('Edited src/core/facts/span-facts.ts, then ran ./bin/cwb and read /etc/hosts.'),
    ).toEqual(['src/core/facts/span-facts.ts', './bin/cwb', '/etc/hosts']);
    expect(findPaths('see README.md and pyproject.toml; also ~/.claude/commands')).toEqual([
      'README.md',
      'pyproject.toml',
      '~/.claude/commands',
    ]);
    expect(findPaths('C:\\Users\\me\\app.py failed')).toEqual(['C:\\Users\\me\\app.py']);
  });

  it('leaves out prose with slashes, fractions, dates and framework names', () => {
    for (const prose of [
      'and/or',
      'All/Active/Completed',
      'brand/product/place/person',
      '1/2',
      '2024/05/01',
      'Next.js',
      'n/a',
    ]) {
      expect(isPath(prose), prose).toBe(false);
    }
    expect(isPath('src/marshmallow')).toBe(false); // two segments, no file, no folder tree
    expect(isPath('todo-app/src/app')).toBe(true);
  });

  it('never takes a URL apart into paths', () => {
    expect(findPaths('see https://github.com/a/b/blob/main/x.py#L4 for it')).toEqual([]);
  });
});

describe('identifiers', () => {
  it('finds camelCase, PascalCase, snake_case and dotted names', () => {
    expect(
      findIdentifiers('call useTodos() in TodoList; max_budget is read via analyticsStore.fetch'),
    ).toEqual(['useTodos', 'TodoList', 'max_budget', 'analyticsStore.fetch']);
  });

  it("leaves out the product's own refs and tools, and file names", () => {
    expect(
      findIdentifiers(
        'full output: ref=trim_1a2b3c4d5e6f; read it with tool_output_cache or history_recall; see setup.py',
      ),
    ).toEqual([]);
  });
});

describe('numbers', () => {
  it('finds numbers with units and versions', () => {
    expect(
      findNumbers('12 passed, 1 failed in 0.35s; built 4.2 MB with node v20.19 and 3.11.4'),
    ).toEqual(['12 passed', '1 failed', '0.35s', '4.2 MB', 'v20.19', '3.11.4']);
  });

  it('leaves out percentages, plain numbers, timestamps and line numbers', () => {
    expect(findNumbers('context 95% full at 12:34:56.789; line 120, column 4; 3.14')).toEqual([]);
  });
});

describe('URLs', () => {
  it('finds them without trailing punctuation', () => {
    expect(findUrls('Docs: https://example.com/a?b=1. And (http://localhost:5173).')).toEqual([
      'https://example.com/a?b=1',
      'http://localhost:5173',
    ]);
  });
});

describe('error lines', () => {
  it('finds errors as tools print them, the end of a traceback first', () => {
    const traceback = [
      'Traceback (most recent call last):',
      '  File "x.py", line 3, in <module>',
      '    main()',
      "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
    ].join('\n');
    expect(findErrorLines(traceback)).toEqual([
      "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
    ]);
    expect(findErrorLines('npm ERR! code ELIFECYCLE\nnpm ERR! errno 1')).toEqual([
      'npm ERR! code ELIFECYCLE',
      'npm ERR! errno 1',
    ]);
    expect(findErrorLines('error[E0308]: mismatched types\n --> src/main.rs:4:5')).toEqual([
      'error[E0308]: mismatched types',
    ]);
    expect(findErrorLines('FAILED tests/test_a.py::test_x - AssertionError: 1 != 2')).toEqual([
      'FAILED tests/test_a.py::test_x - AssertionError: 1 != 2',
    ]);
  });

  it('does not take code that names an error, listings, or "no errors" for one', () => {
    const code = [
      'try:',
      '    run()',
      'except ValueError:',
      '    raise TypeError("bad")',
      "  toaster.error('Failed to load project users')",
      '} catch (error) {',
      'class ParseError(Exception):',
      '42:    if error: return',
      'Build finished with no errors',
    ].join('\n');
    expect(findErrorLines(code, { weak: false })).toEqual([]);
  });

  it('uses a line that only mentions a failure when asked for weak lines', () => {
    expect(findErrorLines('step 1 ok\nthe deploy failed after retrying')).toEqual([
      'the deploy failed after retrying',
    ]);
    expect(findErrorLines('the deploy failed after retrying', { weak: false })).toEqual([]);
  });
});
