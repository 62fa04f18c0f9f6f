import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCwb } from './support/run-ts';
import { useTempDir } from './support/temp-dir';

const tempDir = useTempDir();

describe('cwb hooks status', () => {
  it('names each agent as the UI does, with the id the commands take, and what is installed', () => {
    const home = tempDir();
    fs.mkdirSync(path.join(home, '.gemini'));
    fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), '{ "theme": ');
    const env = { HOME: home, CWB_BIN: path.join(REPO_ROOT, 'bin', 'cwb.js') };
    expect(runCwb(['hooks', 'install', 'codex'], env).status).toBe(0);
    const status = runCwb(['hooks', 'status'], env);
    expect(status.status, status.stderr).toBe(0);
    const lines = status.stdout.split('\n');
    expect(lines).toContain('Claude Code (claude-code, user):');
    expect(lines).toContain('Codex (codex, user):');
    expect(lines).toContain('Gemini CLI (gemini-cli, user):');
    expect(status.stdout).toContain(
      `SessionStart hook (source compact): installed, calls ${env.CWB_BIN}\n    ${path.join(home, '.codex', 'hooks.json')}`,
    );
    expect(status.stdout).toContain(
      `error: ${path.join(home, '.gemini', 'settings.json')} cannot be parsed`,
    );
  });
});
