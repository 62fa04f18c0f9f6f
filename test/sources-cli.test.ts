import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realFixture } from './support/real-fixtures';
import { runCwb } from './support/run-ts';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();

describe('cwb sources', () => {
  it('lists, syncs, adds and removes folders (config.yaml kept as written), and names a bad key', () => {
    const home = tempDir();
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
    const config = path.join(home, 'config.yaml');
    fs.writeFileSync(config, '# my settings\nstorage:\n  cleanup_days: 9\n');
    const cwb = (...args: string[]) =>
      runCwb(
        ['--contexts', path.join(home, 'contexts'), '--config', config, 'sources', ...args],
        env,
      );

    const project = path.join(home, '.claude', 'projects', 'demo');
    fs.mkdirSync(project, { recursive: true });
    fs.copyFileSync(
      realFixture('claude-code', '5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl'),
      path.join(project, 's.jsonl'),
    );
    const extra = path.join(home, 'elsewhere');
    fs.mkdirSync(extra);
    fs.copyFileSync(
      realFixture(
        'codex',
        'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
      ),
      path.join(extra, 'rollout-1.jsonl'),
    );
    // Sessions the agents finished a while ago: their last replies are complete.
    const past = new Date(Date.now() - 60_000);
    for (const file of [path.join(project, 's.jsonl'), path.join(extra, 'rollout-1.jsonl')])
      fs.utimesSync(file, past, past);

    const added = cwb('add', 'codex', extra, '--json');
    expect(added.status, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      changed: true,
      folders: [
        path.join(home, '.codex', 'sessions'),
        path.join(home, '.codex', 'archived_sessions'),
        extra,
      ],
    });
    const text = fs.readFileSync(config, 'utf8');
    expect(text).toContain('# my settings');
    expect(text).toContain('cleanup_days: 9');

    const synced = cwb('sync', '--json');
    expect(synced.status, synced.stderr).toBe(0);
    expect(JSON.parse(synced.stdout)).toMatchObject({ files: 2, synced: 2, errors: [] });
    expect(JSON.parse(cwb('sync', '--json').stdout)).toMatchObject({
      files: 2,
      synced: 0,
      messages: 0,
    });

    const list = JSON.parse(cwb('list', '--json').stdout) as {
      sources: {
        id: string;
        sessions: number;
        messages: number;
        lastSync: string | null;
        configured: boolean;
      }[];
    };
    const byId = Object.fromEntries(list.sources.map((s) => [s.id, s]));
    expect(byId['claude-code']).toMatchObject({ sessions: 1, configured: false });
    expect(byId['claude-code']!.messages).toBeGreaterThan(0);
    expect(byId['codex']).toMatchObject({ sessions: 1, configured: true });
    expect(byId['codex']!.lastSync).not.toBeNull();
    expect(cwb().stdout).toMatch(/claude-code\s+yes\s+1/);

    const removed = cwb('remove', 'codex', extra);
    expect(removed.status, removed.stderr).toBe(0);
    const missing = cwb('remove', 'codex', extra);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('is not a folder of codex');
    expect(cwb('add', 'gemini-x', extra).stderr).toMatch(
      /gemini-x is not a source; known sources: claude-code, codex/,
    );

    fs.writeFileSync(config, 'sources:\n  codex:\n    folder: /x\n');
    const bad = cwb('list');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(
      'sources.codex.folder is not a known key: expected one of the keys enabled, folders',
    );
  });

  it('lists what a sync noticed and went on from: a session file cut short', () => {
    const home = tempDir();
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
    const cwb = (...args: string[]) =>
      runCwb(['--contexts', path.join(home, 'contexts'), 'sources', ...args], env);
    const folder = path.join(home, '.codex', 'sessions', '2026', '05', '11');
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, 'rollout-1.jsonl');
    const lines = fs
      .readFileSync(
        realFixture(
          'codex',
          'rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
        ),
        'utf8',
      )
      .split('\n');
    const past = new Date(Date.now() - 60_000);
    fs.writeFileSync(file, lines.join('\n'));
    fs.utimesSync(file, past, past);
    expect(cwb('sync', 'codex').status).toBe(0);
    fs.writeFileSync(file, `${lines.slice(0, 3).join('\n')}\n`);
    fs.utimesSync(file, past, past);
    expect(cwb('sync', 'codex').status).toBe(0);
    const listed = cwb('list');
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`codex: ${file}: notice: `);
    expect(listed.stdout).toMatch(/the file was replaced or truncated/);
  });
});
