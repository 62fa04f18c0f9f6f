import { describe, expect, it } from 'vitest';
import { extractFacts, lostFacts } from './lost-facts';

const texts = (facts: { kind: string; text: string }[], kind: string): string[] =>
  facts.filter((f) => f.kind === kind).map((f) => f.text);

describe('extractFacts', () => {
  it('finds paths with folders, relative and absolute, and bare file names', () => {
    const facts = extractFacts(
      'Edited src/core/compaction/undo.ts and ./scripts/start.js, read /etc/hosts, then README.md.',
    );
    expect(texts(facts, 'path')).toEqual([
      'src/core/compaction/undo.ts',
      './scripts/start.js',
      '/etc/hosts',
      'README.md',
    ]);
  });

  it('finds camelCase, PascalCase, snake_case and dotted names, but not plain words', () => {
    const facts = extractFacts(
      'Call runCompaction from CompactionRecord via keep_recent_messages and os.path.join, then stop.',
    );
    expect(texts(facts, 'identifier')).toEqual([
      'runCompaction',
      'CompactionRecord',
      'keep_recent_messages',
      'os.path.join',
    ]);
  });

  it('finds versions and numbers with units, not plain numbers (mostly line numbers)', () => {
    const facts = extractFacts(
      'Node v20.19.0 took 250ms and 4 GB on port 8080 for 3 files; python 3.11\n1466 1467',
    );
    expect(texts(facts, 'number')).toEqual(['v20.19.0', '250ms', '4 GB', '3 files', '3.11']);
  });

  it('takes whole lines that mention an error, an exception or a failure', () => {
    const facts = extractFacts(
      'ran tests\nTypeError: x is undefined\n2 passed, 1 failed\nall good\nERROR in build\n' +
        '1466: raise ValueError(msg\nexcept (TypeError, ValueError) as error:\nprints "no errors." E.g. this',
    );
    expect(texts(facts, 'error')).toEqual([
      'TypeError: x is undefined',
      '2 passed, 1 failed',
      'ERROR in build',
    ]);
  });

  it('does not take fractions, dates or prose for paths, nor a path component for an identifier', () => {
    const facts = extractFacts(
      '1/2 done on 2024/05/01 (n/a, start/end) in src/my_module/file_name.py',
    );
    expect(texts(facts, 'path')).toEqual(['src/my_module/file_name.py']);
    expect(texts(facts, 'identifier')).toEqual([]);
  });

  it('lists each fact once', () => {
    expect(texts(extractFacts('a.ts a.ts a.ts'), 'path')).toEqual(['a.ts']);
  });

  it('handles Japanese text around the facts', () => {
    const facts = extractFacts('ファイル src/app.ts を修正し、テストが失敗した: Error: boom');
    expect(texts(facts, 'path')).toEqual(['src/app.ts']);
    expect(texts(facts, 'error')).toHaveLength(1);
  });
});

describe('lostFacts', () => {
  it('returns what the before text mentions and the after text does not', () => {
    const before =
      'Read src/core/undo.ts and called markUndone.\nAssertionError: expected 3 to be 4\nbuild took 812ms';
    const after = 'Summary: read src/core/undo.ts; the test fails.';
    const lost = lostFacts(before, after);
    expect(lost.map((f) => f.text)).toEqual([
      'AssertionError: expected 3 to be 4',
      'markUndone',
      '812ms',
    ]);
  });

  it('keeps a fact the summary mentions in another sentence, and an error line it quotes in part', () => {
    const before = '12:00:01 [x] Error: ENOENT open config.yaml\nsaw fooBar';
    const after = 'fooBar was seen. Error: ENOENT open config.yaml (fixed by creating it)';
    expect(lostFacts(before, after)).toEqual([]);
  });

  it('loses nothing when nothing changed, and everything when the after text is empty', () => {
    const text = 'see lib/a.py and parse_args, v1.2.0\nthe build failed twice';
    expect(lostFacts(text, text)).toEqual([]);
    expect(lostFacts(text, '').map((f) => f.kind)).toEqual([
      'error',
      'path',
      'identifier',
      'number',
    ]);
  });
});
