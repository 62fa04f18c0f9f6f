import { describe, expect, it } from 'vitest';
import { editCallOf, exitStatusOf, parseArgs } from './edit-call';

describe('editCallOf', () => {
  it('reads Claude Code Edit, MultiEdit and Write, the text editor tool and Codex apply_patch', () => {
    expect(editCallOf('Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' })).toEqual({
      kind: 'replace',
      path: 'a.ts',
      edits: [{ before: 'x', after: 'y' }],
    });
    expect(
      editCallOf('MultiEdit', {
        file_path: 'b.ts',
        edits: [
          { old_string: '1', new_string: '2' },
          { old_string: '3', new_string: '4' },
        ],
      }),
    ).toMatchObject({ kind: 'replace', edits: [{}, {}] });
    expect(editCallOf('Write', { file_path: 'c.md', content: 'hi' })).toEqual({
      kind: 'write',
      path: 'c.md',
      content: 'hi',
    });
    expect(editCallOf('write_file', { path: 'd', content: '' })).toMatchObject({ kind: 'write' });
    expect(
      editCallOf('str_replace_based_edit_tool', {
        command: 'str_replace',
        path: 'e',
        old_str: 'a',
        new_str: 'b',
      }),
    ).toMatchObject({ kind: 'replace', path: 'e' });
    const patch = '*** Begin Patch\n*** Update File: f\n-a\n+b\n*** End Patch';
    expect(editCallOf('shell', { command: ['apply_patch', patch] })).toEqual({
      kind: 'patch',
      patch,
    });
    expect(editCallOf('apply_patch', parseArgs(JSON.stringify({ input: patch })))).toEqual({
      kind: 'patch',
      patch,
    });
  });

  it('leaves other calls alone', () => {
    expect(editCallOf('Read', { file_path: 'a.ts' })).toBeUndefined();
    expect(editCallOf('Bash', { command: 'ls', content: 'x' })).toBeUndefined();
    expect(editCallOf('x', 'not json')).toBeUndefined();
  });
});

describe('exitStatusOf', () => {
  it('finds the exit status results report', () => {
    expect(exitStatusOf('Exit code: 1\nWall time: 0.2 s')).toBe(1);
    expect(exitStatusOf('ok\nProcess exited with code 0')).toBe(0);
    expect(exitStatusOf('exit_code=127')).toBe(127);
    expect(exitStatusOf('all good')).toBeUndefined();
  });
});
