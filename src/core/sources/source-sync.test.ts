import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextStore } from '../store/context-store';
import { realFixture } from '../../../test/support/real-fixtures';
import { useTempDir } from '../../../test/support/temp-dir';
import { sourceKind } from './source-kinds';
import { SourceSync, summarize } from './source-sync';
import type { SourcesConfig } from './sources-config';
import { SyncStateRepository } from './sync-state';

const tempDir = useTempDir();
const CLAUDE = realFixture('claude-code', 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');

/** A store and a Claude Code source folder holding one session file. */
function setup(): {
  store: ContextStore;
  sync: SourceSync;
  file: string;
  repo: SyncStateRepository;
} {
  const dir = tempDir();
  const store = ContextStore.open(path.join(dir, 'contexts'));
  const folder = path.join(dir, 'projects');
  fs.mkdirSync(path.join(folder, 'p'), { recursive: true });
  const file = path.join(folder, 'p', 's.jsonl');
  fs.copyFileSync(CLAUDE, file);
  const config: SourcesConfig = {
    watch: false,
    poll: false,
    pollIntervalMs: 1000,
    quietMs: 5000,
    file: null,
    sources: [
      {
        id: 'claude-code',
        label: 'Claude Code',
        enabled: true,
        folders: [folder],
        configured: true,
        kind: sourceKind('claude-code')!,
      },
    ],
  };
  return {
    store,
    sync: new SourceSync(store, config),
    file,
    repo: new SyncStateRepository(store.db),
  };
}

/** Holds the file's lease for another process, as a running `cwb serve` mid-sync does. */
function holdLease(repo: SyncStateRepository, file: string, pid: number): void {
  repo.claim(file, 'claude-code', () => undefined);
  repo.update(file, { lease_pid: pid });
}

describe('SourceSync.syncAll', () => {
  it('reports a file another live process holds as busy, never as silently done', async () => {
    const { store, sync, file, repo } = setup();
    holdLease(repo, file, process.ppid);
    const result = summarize(await sync.syncAll(undefined, { waitBusyMs: 0 }));
    expect(result).toMatchObject({ synced: 0, errors: [], busy: [file] });
    store.close();
  });

  it('waits for a busy file until its holder lets go, then reads it', async () => {
    const { store, sync, file, repo } = setup();
    holdLease(repo, file, process.ppid);
    setTimeout(() => repo.update(file, { lease_pid: null, lease_host: null }), 150);
    const result = summarize(await sync.syncAll(undefined, { waitBusyMs: 60_000 }));
    expect(result).toMatchObject({ synced: 1, errors: [], busy: [] });
    expect(repo.get(file)).toMatchObject({ pending: null, offset: fs.statSync(file).size });
    store.close();
  });

  it.runIf(process.platform === 'linux')(
    'takes over the lease of a killed process its parent has not reaped yet (a zombie)',
    async () => {
      const { store, sync, file, repo } = setup();
      // The forked child ends at once and its parent never waits for it: a zombie. (A shell
      // was used before, but a shell may reap its background job before it execs, which a
      // loaded machine made happen: perl reaps nothing unless asked. perl-base is essential
      // on Debian.)
      const parent = spawn(
        'perl',
        ['-e', '$| = 1; my $pid = fork(); exit 0 if $pid == 0; print "$pid\n"; sleep 30;'],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      try {
        const pid = Number(
          await new Promise<string>((resolve) =>
            parent.stdout.once('data', (d: Buffer) => resolve(d.toString())),
          ),
        );
        const state = (): string => {
          const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
          return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        };
        while (state() !== 'Z') await new Promise((r) => setTimeout(r, 10));
        holdLease(repo, file, pid);
        const result = summarize(await sync.syncAll(undefined, { waitBusyMs: 0 }));
        expect(result).toMatchObject({ synced: 1, busy: [] });
      } finally {
        parent.kill('SIGKILL');
        store.close();
      }
    },
  );
});
