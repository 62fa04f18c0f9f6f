import type { Command } from 'commander';
import { CwbError } from '../../core/errors';
import { EXPORT_FORMATS, exportTasks, type ExportFormat } from '../../core/export';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { printJson, type Output } from '../output';
import { parseChoice } from '../parse-args';
import { parseTaskUuidArg } from '../task-uuid-arg';

interface ExportCommandOptions {
  format: string;
  current?: boolean;
  output?: string;
  json?: boolean;
}

export function registerExport(program: Command, output: Output): void {
  program
    .command('export')
    .description(
      'export tasks as a portable archive (zip), a Markdown transcript or OpenAI messages JSON',
    )
    .argument('<uuid...>', 'task ids')
    .option('--format <format>', EXPORT_FORMATS.join(', '), 'archive')
    .option(
      '--current',
      'markdown/openai: the context the model sees now instead of the full history',
    )
    .option(
      '-o, --output <path>',
      'archive: the zip file (default ./<uuid>.zip); markdown/openai: the file (default stdout), or a folder for several tasks; - is stdout',
    )
    .option('--json', 'print what was written as JSON')
    .action(async (uuidArgs: string[], opts: ExportCommandOptions, cmd: Command) => {
      const format = parseChoice<ExportFormat>('--format', opts.format, EXPORT_FORMATS);
      const uuids = uuidArgs.map(parseTaskUuidArg);
      const toStdout = opts.output === '-' || (opts.output === undefined && format !== 'archive');
      if (toStdout && opts.json)
        throw new CwbError(
          'usage',
          '--json reports on files: pass -o PATH (stdout carries the export)',
        );
      if (toStdout && format === 'archive' && process.stdout.isTTY)
        throw new CwbError('usage', 'refusing to write a zip archive to a terminal: pass -o FILE');
      const ctx = resolveContext(cmd.optsWithGlobals<GlobalOptions>());
      let result;
      try {
        result = await withStore(ctx, (store) =>
          exportTasks(store, {
            uuids,
            format,
            current: opts.current === true,
            ...(opts.output !== undefined && { output: opts.output }),
          }),
        );
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
        throw err;
      }
      for (const t of result.transcripts ?? []) {
        for (const bad of t.bad)
          output.err(
            `cwb: warning: ${t.uuid} ${bad.file} line ${bad.line}: ${bad.error} (left out)`,
          );
      }
      for (const a of result.archived ?? []) {
        if (a.left_out.length > 0)
          output.err(
            `cwb: note: ${a.uuid}: not archived (temporary files): ${a.left_out.join(', ')}`,
          );
      }
      if (opts.json) {
        printJson(output, result);
        return;
      }
      if (toStdout) return;
      for (const f of result.files) {
        output.out(
          `wrote ${f.path} (${f.bytes} bytes, ${f.tasks.length} task${f.tasks.length === 1 ? '' : 's'})`,
        );
      }
    });
}
