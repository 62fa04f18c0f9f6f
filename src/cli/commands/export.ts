import type { Command } from 'commander';
import { CwbError } from '../../core/errors';
import {
  describeRedactions,
  EXPORT_FORMATS,
  exportTasks,
  redactionFor,
  type ExportFormat,
} from '../../core/export';
import { CLI_VERSION } from '../version';
import { resolveContext, withStore, type GlobalOptions } from '../cli-context';
import { printJson, type Output } from '../output';
import { parseChoice } from '../parse-args';
import { parseTaskUuidArg } from '../task-uuid-arg';

interface ExportCommandOptions {
  format: string;
  current?: boolean;
  output?: string;
  json?: boolean;
  redact?: boolean;
  redactHome?: boolean;
}

export function registerExport(program: Command, output: Output): void {
  program
    .command('export')
    .description(
      'export tasks as a portable archive (zip), a Markdown transcript, OpenAI messages JSON or one HTML page to share',
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
    .option(
      '--redact',
      'remove API keys, tokens, private keys and configured secrets first (the default for html)',
    )
    .option('--no-redact', 'html: write the page as it is, secrets and all')
    .option('--redact-home', 'also show home folders in paths as ~ (with redaction)')
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
      if (opts.redactHome && opts.redact === false)
        throw new CwbError('usage', '--redact-home works with redaction: drop --no-redact');
      const asked =
        opts.redact === undefined && !opts.redactHome
          ? undefined
          : { secrets: opts.redact ?? true, home: opts.redactHome === true };
      const redaction = redactionFor(format, asked, () => ctx.config, process.env);
      let result;
      try {
        result = await withStore(ctx, (store) =>
          exportTasks(store, {
            uuids,
            format,
            current: opts.current === true,
            ...(opts.output !== undefined && { output: opts.output }),
            redaction,
            version: CLI_VERSION,
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
      if (result.redactions) {
        const what = describeRedactions(result.redactions);
        output.err(`cwb: redacted: ${what ?? 'nothing found'}`);
      }
      if (toStdout) return;
      for (const f of result.files) {
        output.out(
          `wrote ${f.path} (${f.bytes} bytes, ${f.tasks.length} task${f.tasks.length === 1 ? '' : 's'})`,
        );
      }
    });
}
