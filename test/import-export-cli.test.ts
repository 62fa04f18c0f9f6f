/** `cwb import` and `cwb export` as a user runs them (real processes). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCwb } from './support/run-ts';
import { useTempDir } from './support/temp-dir';
import { REAL_FIXTURES } from './support/real-fixtures';

const tempDir = useTempDir();
const FIXTURES = REAL_FIXTURES;

interface ImportJson {
  imported: {
    uuid: string;
    file: string;
    format: string;
    messages: number;
    tool_calls: number;
    parent_uuid: string | null;
  }[];
  skipped: { file: string; line?: number; error: string }[];
  failed: { file: string; error: string }[];
}

describe('cwb import / export', () => {
  it('imports files and folders, lists every new task with its counts and skipped lines, and exports them again', () => {
    const dir = tempDir();
    const root = path.join(dir, 'contexts');
    const session = path.join(dir, 'session.jsonl');
    const lines = fs
      .readFileSync(
        path.join(FIXTURES, 'claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
        'utf8',
      )
      .split('\n');
    lines.splice(3, 0, '{"type": "user", "message": tr'); // line 4 is broken
    fs.writeFileSync(session, lines.join('\n'));

    const imported = runCwb([
      '--contexts',
      root,
      'import',
      session,
      path.join(FIXTURES, 'swe-agent'),
      '--json',
    ]);
    expect(imported.stderr).toBe('');
    expect(imported.status).toBe(0);
    const json = JSON.parse(imported.stdout) as ImportJson;
    expect(json.imported.map((t) => t.format)).toEqual([
      'claude-code',
      'claude-code',
      'claude-code',
      'swe-agent',
      'swe-agent',
    ]);
    expect(json.imported[0]).toMatchObject({ messages: 25, tool_calls: 13, parent_uuid: null });
    expect(json.imported[1]!.parent_uuid).toBe(json.imported[0]!.uuid);
    expect(json.skipped).toEqual([
      {
        file: 'session.jsonl',
        line: 4,
        error: expect.stringMatching(/^malformed JSON/),
      },
    ]);
    expect(json.failed).toEqual([]);

    const main = json.imported[0]!.uuid;
    const md = runCwb(['--contexts', root, 'export', main, '--format', 'markdown']);
    expect(md.status).toBe(0);
    // The title is the request: the slash command's arguments, not the command.
    expect(md.stdout).toMatch(/^# @CLAUDE.md を最新の状態に/);
    expect(md.stdout).toContain('⟪TOOL CALL⟫');

    const zip = path.join(dir, 'tasks.zip');
    const exported = runCwb([
      '--contexts',
      root,
      'export',
      ...json.imported.map((t) => t.uuid),
      '-o',
      zip,
      '--json',
    ]);
    expect(exported.status).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({
      format: 'archive',
      files: [{ path: zip, tasks: json.imported.map((t) => t.uuid) }],
    });

    const human = runCwb([
      '--contexts',
      path.join(dir, 'other'),
      'import',
      zip,
      '--on-conflict',
      'replace',
    ]);
    expect(human.status).toBe(0);
    expect(human.stdout).toContain(`${main}  25 messages, 13 tool calls`);
    expect(human.stdout).toContain('Imported 5 tasks from 1 file.');
  });

  it('exit codes: 2 for files it cannot import (the others still are), 1 for bad flags', () => {
    const dir = tempDir();
    const root = path.join(dir, 'contexts');
    const folder = path.join(dir, 'in');
    fs.mkdirSync(folder);
    fs.writeFileSync(
      path.join(folder, 'a.json'),
      JSON.stringify([{ role: 'user', content: 'hello' }]),
    );
    fs.writeFileSync(path.join(folder, 'b.json'), '{"not": "a transcript"}');
    const mixed = runCwb(['--contexts', root, 'import', folder, '--json']);
    expect(mixed.status).toBe(2);
    const json = JSON.parse(mixed.stdout) as ImportJson;
    expect(json.imported).toHaveLength(1);
    expect(json.failed).toEqual([
      { file: path.join(folder, 'b.json'), error: expect.stringMatching(/cannot tell its format/) },
    ]);
    expect(mixed.stderr).toContain('cwb: error: 1 of 2 files could not be imported');

    const missing = runCwb(['--contexts', root, 'import', path.join(dir, 'nope.jsonl')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^cwb: error: .*nope\.jsonl: no such file/);

    expect(runCwb(['--contexts', root, 'import', folder, '--format', 'yaml']).status).toBe(1);
    expect(runCwb(['--contexts', root, 'export', '../etc/passwd']).status).toBe(2);
    const unknown = runCwb([
      '--contexts',
      root,
      'export',
      '550e8400-e29b-41d4-a716-446655440000',
      '-o',
      path.join(os.tmpdir(), 'never.zip'),
    ]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/no task with id/);
  });

  it('redaction flags: html redacts unless --no-redact, markdown only with --redact; bad mixes are refused', () => {
    const dir = tempDir();
    const root = path.join(dir, 'contexts');
    const session = path.join(dir, 'session.jsonl');
    // A GitHub token pasted into the request, built at run time so no scanner flags this file.
    const token = 'ghp_' + 'Tt1Yy2Uu3Ii4Oo5Pp6Aa7Ss8Dd9Ff0Gg1Hh2Jj';
    const lines = fs
      .readFileSync(
        path.join(FIXTURES, 'claude-code/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
        'utf8',
      )
      .split('\n')
      .map((l) => l.replace('"content":"', `"content":"token ${token} `));
    fs.writeFileSync(session, lines.join('\n'));
    const imported = runCwb(['--contexts', root, 'import', session, '--json']);
    expect(imported.status).toBe(0);
    const uuid = (JSON.parse(imported.stdout) as ImportJson).imported[0]!.uuid;

    const page = runCwb(['--contexts', root, 'export', uuid, '--format', 'html']);
    expect(page.status).toBe(0);
    expect(page.stdout).not.toContain(token);
    expect(page.stderr).toMatch(/^cwb: redacted: 1 GitHub token/m);
    const raw = runCwb(['--contexts', root, 'export', uuid, '--format', 'html', '--no-redact']);
    expect(raw.stdout).toContain(token);
    expect(raw.stdout).toContain('<strong>Not redacted.</strong>');

    const md = runCwb(['--contexts', root, 'export', uuid, '--format', 'markdown']);
    expect(md.stdout).toContain(token);
    const mdSafe = runCwb(['--contexts', root, 'export', uuid, '--format', 'markdown', '--redact']);
    expect(mdSafe.stdout).not.toContain(token);
    expect(mdSafe.stdout).toContain('[REDACTED:github-token]');

    const mixed = runCwb([
      '--contexts',
      root,
      'export',
      uuid,
      '--format',
      'html',
      '--no-redact',
      '--redact-home',
    ]);
    expect(mixed.status).toBe(1);
    expect(mixed.stderr).toContain('--redact-home works with redaction');
    const current = runCwb(['--contexts', root, 'export', uuid, '--format', 'html', '--current']);
    expect(current.status).toBe(1);
    expect(current.stderr).toContain('an html page shows the whole history');
  });
});
