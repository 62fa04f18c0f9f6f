import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { ContextStore } from '../store/context-store';
import { badInput, CwbError } from '../errors';
import { writeArchive, type ArchivedTask } from './archive-export';
import { writeMarkdown, type TranscriptExport } from './markdown-export';
import { writeOpenAi } from './openai-export';
import { writeHtml } from './html-export';
import { cannotWrite, openOutput, sinkOf, type OutputTarget, type TextSink } from './output-target';
import { isoTimestamp } from '../iso-timestamp';
import { learnTaskSecrets } from './learn-secrets';
import {
  addRedactionCounts,
  describeRedactions,
  Redactor,
  type RedactionCounts,
  type RedactionOptions,
} from './redaction';

export const EXPORT_FORMATS = ['archive', 'markdown', 'openai', 'html'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportRequest {
  uuids: readonly string[];
  format: ExportFormat;
  /** markdown and openai: the current context instead of the full history. */
  current?: boolean;
  /**
   * archive: the zip file (default `./<uuid>.zip`, or `./cwb-export-<time>.zip` for several
   * tasks). markdown/openai: the file for one task (default stdout), a directory for
   * several (one `<uuid>.md` / `<uuid>.json` each). `-` is stdout.
   */
  output?: string;
  /** Where `-` writes (tests capture it). */
  stdout?: Writable;
  /**
   * Secrets to remove before anything is written (see redaction.ts); null or absent: none.
   * On by default for html only; the caller decides (`--no-redact`, `--redact`).
   */
  redaction?: RedactionOptions | null;
  /** The app's version, for an html page's footer. */
  version?: string;
}

/** Whether a format is redacted when the request does not say: pages are made to be shared. */
export function redactsByDefault(format: ExportFormat): boolean {
  return format === 'html';
}

export interface ExportedFile {
  /** null for stdout */
  path: string | null;
  bytes: number;
  tasks: string[];
}

export interface ExportResult {
  format: ExportFormat;
  files: ExportedFile[];
  archived?: ArchivedTask[];
  transcripts?: TranscriptExport[];
  /** What was redacted, by kind, over every file; null when redaction was off. */
  redactions: RedactionCounts | null;
}

const EXTENSION: Record<Exclude<ExportFormat, 'archive'>, string> = {
  markdown: '.md',
  openai: '.json',
  html: '.html',
};

/** Exports tasks; every task is checked to exist before anything is written. */
export async function exportTasks(
  store: ContextStore,
  request: ExportRequest,
): Promise<ExportResult> {
  const uuids = [...new Set(request.uuids)];
  if (uuids.length === 0) throw new CwbError('usage', 'name at least one task to export');
  for (const uuid of uuids) store.requireTask(uuid);
  // The file system would refuse it with a TypeError; it is the user's input that is wrong.
  if (request.output?.includes('\0'))
    throw badInput(`output path ${JSON.stringify(request.output)} contains a NUL byte`);
  const stdout = request.stdout ?? process.stdout;
  if (request.format === 'archive') {
    if (request.current)
      throw new CwbError(
        'usage',
        '--current applies to markdown and openai; an archive holds every file',
      );
    let target = request.output ?? defaultArchiveName(uuids);
    if (target !== '-' && isDirectory(target))
      target = path.join(target, defaultArchiveName(uuids));
    const archived: ArchivedTask[] = [];
    const redactor = request.redaction ? new Redactor(request.redaction) : null;
    if (redactor)
      for (const uuid of uuids)
        await learnTaskSecrets(redactor, store.taskPath(store.requireTask(uuid)));
    const file = await writeTo(target, stdout, uuids, async (out) => {
      archived.push(...(await writeArchive(store, uuids, out.stream, redactor)));
    });
    return {
      format: 'archive',
      files: [file],
      archived,
      redactions: redactor ? redactor.counts : null,
    };
  }
  if (request.format === 'html' && request.current)
    throw new CwbError(
      'usage',
      '--current applies to markdown and openai; an html page shows the whole history with its compactions marked',
    );
  const ext = EXTENSION[request.format];
  const counts: RedactionCounts | null = request.redaction ? {} : null;
  const transcripts: TranscriptExport[] = [];
  const files: ExportedFile[] = [];
  const several = uuids.length > 1;
  if (several && (request.output === undefined || request.output === '-')) {
    throw new CwbError(
      'usage',
      `exporting ${uuids.length} tasks as ${request.format} writes one file per task: pass -o DIR`,
    );
  }
  if (several) await fs.promises.mkdir(request.output!, { recursive: true });
  for (const uuid of uuids) {
    let target = request.output ?? '-';
    if (several || (target !== '-' && isDirectory(target)))
      target = path.join(target, `${uuid}${ext}`);
    files.push(
      await writeTo(target, stdout, [uuid], async (out) => {
        transcripts.push(await writeTranscript(store, uuid, sinkOf(out.stream), request, counts));
      }),
    );
  }
  return { format: request.format, files, transcripts, redactions: counts };
}

/** One task's transcript in a text format, redacted as asked; adds what it redacted to `counts`. */
async function writeTranscript(
  store: ContextStore,
  uuid: string,
  sink: TextSink,
  request: ExportRequest,
  counts: RedactionCounts | null,
): Promise<TranscriptExport> {
  if (request.format === 'html') {
    const page = await writeHtml(store, uuid, sink, {
      redaction: request.redaction ?? null,
      version: request.version ?? '',
    });
    if (counts && page.redactions) addRedactionCounts(counts, page.redactions);
    return page;
  }
  const write = request.format === 'markdown' ? writeMarkdown : writeOpenAi;
  const options = { current: request.current === true };
  if (!request.redaction) return write(store, uuid, sink, options);
  // Every block these writers hand the sink is a whole message (or record), so a secret is
  // never split between two writes.
  const redactor = new Redactor(request.redaction);
  await learnTaskSecrets(redactor, store.taskPath(store.requireTask(uuid)));
  const result = await write(
    store,
    uuid,
    { write: (text) => sink.write(redactor.redact(text)) },
    options,
  );
  if (request.format === 'markdown') await sink.write(markdownRedactionNote(redactor.counts));
  if (counts) addRedactionCounts(counts, redactor.counts);
  return result;
}

function markdownRedactionNote(counts: RedactionCounts): string {
  const what = describeRedactions(counts);
  return `\n---\n\n_Redacted before export: ${what ?? 'nothing was found (API keys, tokens, private keys, configured secrets)'}._\n`;
}

async function writeTo(
  target: string,
  stdout: Writable,
  uuids: string[],
  fill: (out: OutputTarget) => Promise<void>,
): Promise<ExportedFile> {
  const out = await openOutput(target, stdout);
  try {
    await fill(out);
    return { path: out.path, bytes: await out.commit(), tasks: uuids };
  } catch (err) {
    await out.abort();
    // When the file failed (a full disk), that is the cause of whatever the writer threw.
    throw out.path !== null && out.error ? cannotWrite(out.path, out.error) : err;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function defaultArchiveName(uuids: string[]): string {
  if (uuids.length === 1) return `${uuids[0]}.zip`;
  const stamp = isoTimestamp().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `cwb-export-${stamp}.zip`;
}
