import type { Command } from 'commander';
import { CwbError } from '../../core/errors';
import { IMPORT_FORMATS, importPaths, type ImportFormat } from '../../core/import';
import type { UuidConflict } from '../../core/store/task-import';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { keepSearchIndexCurrent } from '../../core/search/session-search';
import { clip, printJson, type Output } from '../output';
import { parseChoice } from '../parse-args';

interface ImportCommandOptions {
  format: string;
  onConflict: string;
  json?: boolean;
}

const FORMAT_CHOICES = ['auto', ...IMPORT_FORMATS] as const;
const CONFLICT_CHOICES = ['keep-both', 'replace'] as const;

export function registerImport(program: Command, output: Output): void {
  program
    .command('import')
    .description(
      'import tasks: cwb archives, Claude Code, Codex or Gemini CLI sessions, OpenHands trajectories/events, Cline or Roo Code tasks, Aider chat histories, OpenAI chat JSON, SWE-agent .traj (a folder: the files in it)',
    )
    .argument('<path...>', 'files or folders to import')
    .option(`--format <format>`, `${FORMAT_CHOICES.join(', ')}`, 'auto')
    .option(
      '--on-conflict <mode>',
      'archives: a task whose uuid exists already is kept beside it under a new uuid (keep-both) or replaces it (replace)',
      'keep-both',
    )
    .option('--json', 'print JSON')
    .action(async (paths: string[], opts: ImportCommandOptions, cmd: Command) => {
      const format = parseChoice<ImportFormat | 'auto'>('--format', opts.format, FORMAT_CHOICES);
      const onConflict = parseChoice<UuidConflict>(
        '--on-conflict',
        opts.onConflict,
        CONFLICT_CHOICES,
      );
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      const run = await withStore(ctx, async (store) => {
        const done = await importPaths(store, paths, { format, onConflict });
        // What was imported is searchable at once (cwb search would index it first anyway).
        keepSearchIndexCurrent(store, Number.POSITIVE_INFINITY);
        return done;
      });
      const imported = run.results.flatMap((r) =>
        r.tasks.map((t) => ({ ...t, file: r.file, format: r.format })),
      );
      const skipped = run.results.flatMap((r) => r.skipped);
      if (opts.json) {
        printJson(output, {
          imported,
          skipped,
          skipped_unlisted: run.results.reduce((n, r) => n + r.skipped_unlisted, 0),
          ignored: Object.fromEntries(run.results.map((r) => [r.file, r.ignored])),
          failed: run.failed,
        });
      } else {
        const lines: string[] = [];
        for (const r of run.results) {
          lines.push(`${r.file} (${r.format})`);
          for (const t of r.tasks) {
            const notes = [
              t.parent_uuid ? `child of ${t.parent_uuid.slice(0, 8)}` : '',
              t.original_uuid ? `was ${t.original_uuid}` : '',
              t.replaced ? 'replaced the existing task' : '',
            ].filter(Boolean);
            lines.push(
              `  ${t.uuid}  ${t.messages} messages, ${t.tool_calls} tool calls  ${clip(t.title ?? '', 60)}${notes.length ? `  (${notes.join(', ')})` : ''}`,
            );
          }
          for (const s of r.skipped) {
            lines.push(`  skipped ${s.line !== undefined ? `line ${s.line}` : s.item}: ${s.error}`);
          }
          if (r.skipped_unlisted > 0) lines.push(`  … and ${r.skipped_unlisted} more skipped`);
        }
        const files = run.results.length;
        lines.push(
          `Imported ${imported.length} task${imported.length === 1 ? '' : 's'} from ${files} file${files === 1 ? '' : 's'}.`,
        );
        if (run.results.length > 0 || run.failed.length === 0) output.out(lines.join('\n'));
      }
      if (run.failed.length === 1 && run.results.length === 0) {
        throw new CwbError('bad_input', `${run.failed[0]!.file}: ${run.failed[0]!.error}`);
      }
      if (run.failed.length > 0) {
        for (const f of run.failed) output.err(`cwb: error: ${f.file}: ${f.error}`);
        throw new CwbError(
          'bad_input',
          `${run.failed.length} of ${run.failed.length + run.results.length} files could not be imported`,
        );
      }
    });
}
