import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiErrorInfo } from '../../shared/api/api-result';
import type { OperationName } from '../../shared/api/operation-names';
import type { ApiOutput } from '../../shared/api/workbench-api';
import { useTempDir } from '../../../test/support/temp-dir';
import { createWorkbenchService, type WorkbenchService } from '../api/workbench-service';

/** Settings › Agent integration's operations, through the service's validated entry. */

const tempDir = useTempDir();
const services: WorkbenchService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close(100);
});

const SETTINGS = `{
  "permissions": { "allow": ["Bash(npm test)"] },
  // a comment people keep
  "hooks": {
    "SessionStart": [{ "matcher": "startup", "hooks": [{ "type": "command", "command": "cat notes.md" }] }]
  },
  "model": "opus"
}
`;

function open(env: NodeJS.ProcessEnv = {}): { service: WorkbenchService; home: string } {
  const home = tempDir();
  const cwb = path.join(home, 'bin', 'cwb');
  fs.mkdirSync(path.dirname(cwb));
  fs.writeFileSync(cwb, '#!/bin/sh\n', { mode: 0o755 });
  const service = createWorkbenchService({
    contextsRoot: path.join(home, 'contexts'),
    configFile: null,
    fork: () => {
      throw new Error('no task process here');
    },
    host: { kind: 'serve', version: '0.1.0-test', versions: {} },
    exportDir: path.join(home, 'exports'),
    env: { HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg'), CWB_BIN: cwb, ...env },
  });
  services.push(service);
  return { service, home };
}

async function call<K extends OperationName>(
  service: WorkbenchService,
  name: K,
  input: unknown,
): Promise<ApiOutput<K>> {
  const r = await service.invoke(name, input);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value as ApiOutput<K>;
}

async function fails(service: WorkbenchService, name: OperationName, input: unknown) {
  const r = await service.invoke(name, input);
  if (r.ok) throw new Error(`${name} succeeded`);
  return r.error as ApiErrorInfo;
}

describe('agent integration operations', () => {
  it('preview shows the diff and writes nothing; apply writes it; uninstall gives the file back', async () => {
    const { service, home } = open();
    const file = path.join(home, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, SETTINGS);
    const before = await call(service, 'integrationStatus', {});
    const claude = before.agents.find((a) => a.agent === 'claude-code')!;
    expect(before.cwb).toBe(path.join(home, 'bin', 'cwb'));
    expect(claude.pieces.map((p) => [p.kind, p.file, p.installed])).toEqual([
      ['hook', file, false],
      ['mcp', path.join(home, '.claude.json'), false],
    ]);
    expect(before.agents.find((a) => a.agent === 'gemini-cli')!.hookSupported).toBe(false);

    const preview = await call(service, 'previewIntegration', {
      agent: 'claude-code',
      action: 'install',
    });
    expect(preview.changes.map((c) => [c.kind, c.created])).toEqual([
      ['hook', false],
      ['mcp', true],
    ]);
    expect(preview.changes[0]!.diff).toMatch(
      new RegExp(`^\\+\\s+"command": "${before.cwb} hook claude-code",$`, 'm'),
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(SETTINGS);
    expect(fs.existsSync(path.join(home, '.claude.json'))).toBe(false);

    const applied = await call(service, 'applyIntegration', {
      agent: 'claude-code',
      action: 'install',
      planId: preview.planId,
    });
    expect(applied.status.pieces.every((p) => p.installed && p.callsExists)).toBe(true);
    expect(applied.changes[0]!.backup).toBe(`${file}.cwb-backup`);
    const installed = fs.readFileSync(file, 'utf8');
    expect(installed).toContain('// a comment people keep');
    expect(installed).toContain('"permissions": { "allow": ["Bash(npm test)"] },');

    const undo = await call(service, 'previewIntegration', {
      agent: 'claude-code',
      action: 'uninstall',
    });
    expect(undo.changes.map((c) => [c.kind, c.removed])).toEqual([
      ['hook', false],
      ['mcp', true],
    ]);
    await call(service, 'applyIntegration', {
      agent: 'claude-code',
      action: 'uninstall',
      planId: undo.planId,
    });
    expect(fs.readFileSync(file, 'utf8')).toBe(SETTINGS);
    expect(fs.existsSync(path.join(home, '.claude.json'))).toBe(false);
  });

  it('refuses a preview the file has moved on from', async () => {
    const { service, home } = open();
    const file = path.join(home, '.gemini', 'settings.json');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, '{ "theme": "Dracula" }\n');
    const preview = await call(service, 'previewIntegration', {
      agent: 'gemini-cli',
      action: 'install',
    });
    fs.writeFileSync(file, '{ "theme": "GitHub" }\n');
    const error = await fails(service, 'applyIntegration', {
      agent: 'gemini-cli',
      action: 'install',
      planId: preview.planId,
    });
    expect(error.code).toBe('conflict');
    expect(error.message).toContain(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "theme": "GitHub" }\n');
  });

  it('names a file that does not parse, in the status and on install, and leaves it alone', async () => {
    const { service, home } = open();
    const file = path.join(home, '.gemini', 'settings.json');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, '{ "theme": "Dracula", ');
    const status = await call(service, 'integrationStatus', {});
    const gemini = status.agents.find((a) => a.agent === 'gemini-cli')!;
    expect(gemini.pieces[0]!.error).toContain(`${file} cannot be parsed`);
    const error = await fails(service, 'applyIntegration', {
      agent: 'gemini-cli',
      action: 'install',
    });
    expect(error.code).toBe('bad_input');
    expect(error.message).toContain(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "theme": "Dracula", ');
  });

  it('masks the credentials that sit beside the change in the preview', async () => {
    const { service, home } = open();
    const file = path.join(home, '.gemini', 'settings.json');
    fs.mkdirSync(path.dirname(file));
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    fs.writeFileSync(
      file,
      `{\n  "mcpServers": {\n    "github": {\n      "command": "gh-mcp",\n      "env": { "GITHUB_TOKEN": "${token}", "MY_API_KEY": "plain-secret-value" }\n    }\n  }\n}\n`,
    );
    const preview = await call(service, 'previewIntegration', {
      agent: 'gemini-cli',
      action: 'install',
    });
    const diff = preview.changes[0]!.diff;
    expect(diff).toContain('"env": {');
    expect(diff).not.toContain(token);
    expect(diff).not.toContain('plain-secret-value');
    expect(diff).toContain('+    "context-workbench": {');
  });

  it('checks the project folder a request names, and never writes through a link', async () => {
    const { service, home } = open();
    const project = path.join(home, 'repo');
    fs.mkdirSync(project);
    const bad = async (input: object) =>
      fails(service, 'previewIntegration', { agent: 'claude-code', action: 'install', ...input });
    expect((await bad({ scope: 'project' })).field).toBe('project');
    expect((await bad({ scope: 'project', project: 'repo' })).code).toBe('bad_input');
    expect((await bad({ scope: 'user', project })).field).toBe('project');
    expect((await bad({ scope: 'project', project: `${project}/../repo` })).message).toContain(
      'without "." or ".."',
    );
    expect((await bad({ scope: 'project', project: path.join(home, 'none') })).code).toBe(
      'not_found',
    );
    // A link out of the project: .claude → a folder elsewhere.
    const elsewhere = path.join(home, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, path.join(project, '.claude'));
    const out = await bad({ scope: 'project', project });
    expect(out.message).toContain('leads out of the project folder');
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    // A settings file that is a link is left alone too.
    fs.rmSync(path.join(project, '.claude'));
    fs.mkdirSync(path.join(project, '.claude'));
    fs.writeFileSync(path.join(elsewhere, 'settings.json'), '{}\n');
    fs.symlinkSync(
      path.join(elsewhere, 'settings.json'),
      path.join(project, '.claude', 'settings.json'),
    );
    expect((await bad({ scope: 'project', project })).message).toContain('is a symbolic link');

    fs.rmSync(path.join(project, '.claude', 'settings.json'));
    const applied = await call(service, 'applyIntegration', {
      agent: 'claude-code',
      action: 'install',
      scope: 'project',
      project: `${project}/`,
    });
    expect(applied.changes.map((c) => c.file)).toEqual([
      path.join(project, '.claude', 'settings.json'),
      path.join(project, '.mcp.json'),
    ]);
    const status = await call(service, 'integrationStatus', { scope: 'project', project });
    expect(status.project).toBe(project);
    expect(status.agents[0]!.pieces.every((p) => p.installed)).toBe(true);
  });

  it('refuses to install when there is no cwb for the agent to call', async () => {
    const { service } = open({ CWB_BIN: '', PATH: '' });
    expect((await call(service, 'integrationStatus', {})).cwb).toBeNull();
    const error = await fails(service, 'applyIntegration', { agent: 'codex', action: 'install' });
    expect(error.message).toContain('no cwb command');
  });
});
