import type { Command } from 'commander';
import { defaultConfigPath } from '../../core/config/config-path';
import { loadSourcesConfig } from '../../core/sources/sources-config';
import { editSourceFolders } from '../../core/sources/sources-edit';
import { SourceSync, summarize, WAIT_BUSY_MS } from '../../core/sources/source-sync';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { formatTable, formatTime, printJson, type Output } from '../output';

interface JsonOption {
  json?: boolean;
}

/**
 * `cwb sources`: other agents' session stores (Claude Code, Codex, ...) as sources —
 * list them with their folders, sessions, last sync and errors; sync now; add or remove a
 * folder (config.yaml's `sources:` section).
 */
export function registerSources(program: Command, output: Output): void {
  const sources = program
    .command('sources')
    .description(
      "other agents' session folders synced into the workbench (list, sync, add, remove)",
    );

  const list = async (opts: JsonOption, cmd: Command): Promise<void> => {
    const global = cmd.optsWithGlobals<GlobalOptions>();
    const ctx = resolveContext(global);
    const config = loadSourcesConfig({ file: global.config ?? null });
    await withStore(ctx, (store) => {
      const status = new SourceSync(store, config).status();
      if (opts.json) return printJson(output, status);
      output.out(
        formatTable(
          ['SOURCE', 'ENABLED', 'SESSIONS', 'MESSAGES', 'LAST SYNC (UTC)', 'ERRORS', 'FOLDERS'],
          status.sources.map((s) => [
            s.id,
            s.enabled ? 'yes' : 'no',
            String(s.sessions),
            String(s.messages),
            s.lastSync === null ? '-' : formatTime(s.lastSync),
            String(s.errorCount),
            s.folders.map((f) => `${f.path}${f.exists ? '' : ' (missing)'}`).join(', '),
          ]),
          120,
        ),
      );
      for (const s of status.sources)
        for (const e of s.errors) output.out(`${s.id}: ${e.path}: ${e.error}`);
      // What a sync noticed and went on from (a file replaced or cut short): not an error.
      for (const s of status.sources)
        for (const n of s.notices) output.out(`${s.id}: ${n.path}: notice: ${n.notice}`);
    });
  };

  sources
    .command('list', { isDefault: true })
    .description('each source with its folders, session count, last sync and errors')
    .option('--json', 'print JSON')
    .action(list);

  sources
    .command('sync [source]')
    .description("read what is new in every session file now (or only one source's)")
    .option('--json', 'print JSON')
    .action(async (source: string | undefined, opts: JsonOption, cmd: Command) => {
      const global = cmd.optsWithGlobals<GlobalOptions>();
      const ctx = resolveContext(global);
      const config = loadSourcesConfig({ file: global.config ?? null });
      await withStore(ctx, async (store) => {
        const result = summarize(
          await new SourceSync(store, config).syncAll(source, { waitBusyMs: WAIT_BUSY_MS }),
        );
        // A file left unread (busy) is a failure too: the caller must not take it as done.
        const failed = result.errors.length > 0 || result.busy.length > 0;
        if (opts.json) {
          printJson(output, result);
          if (failed) process.exitCode = 1;
          return;
        }
        output.out(
          `Synced ${result.files} session file${result.files === 1 ? '' : 's'}: ${result.messages} new message${result.messages === 1 ? '' : 's'}.`,
        );
        for (const e of result.errors) output.err(`cwb sources sync: ${e.path}: ${e.error}`);
        for (const p of result.busy)
          output.err(
            `cwb sources sync: ${p}: busy: another running cwb is still syncing it (waited ${WAIT_BUSY_MS / 1000} s); try again`,
          );
        if (failed) process.exitCode = 1;
      });
    });

  for (const action of ['add', 'remove'] as const) {
    sources
      .command(`${action} <source> <folder>`)
      .description(
        action === 'add'
          ? "add a folder to a source (config.yaml); the agent's default folders stay"
          : 'remove a folder from a source (config.yaml)',
      )
      .option('--json', 'print JSON')
      .action((source: string, folder: string, opts: JsonOption, cmd: Command) => {
        const global = cmd.optsWithGlobals<GlobalOptions>();
        const file = global.config ?? defaultConfigPath();
        const edit = editSourceFolders(file, source, folder, action);
        if (opts.json) return printJson(output, edit);
        output.out(
          edit.changed
            ? `${source}: folders now ${edit.folders.join(', ') || '(none)'} (${edit.file})`
            : `${source}: nothing to change; folders ${edit.folders.join(', ')}`,
        );
      });
  }
}
