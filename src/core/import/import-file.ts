import fs from 'node:fs';
import path from 'node:path';
import type { TaskRow } from '../../shared/task-types';
import type { ContextStore } from '../store/context-store';
import { CwbError, badInput, notFound } from '../errors';
import { importArchive } from './archive-import';
import { importClaudeCode } from './claude-code';
import { importCodex } from './codex';
import { detectDocument, sniffFile } from './detect-format';
import type { TranscriptImport } from './import-report';
import { readJsonDocument } from './json-document';
import { importOpenAiChat } from './openai-chat';
import { importSweAgent } from './swe-agent';
import { importSessionFile } from './session-import';
import { SESSION_FORMATS, isSessionFormatName } from './session-formats';
import { DATABASE_FORMATS, isDatabaseFormatName, isSqliteFile } from './database-formats';
import type { FileImportResult, ImportFormat, ImportOptions, ImportedTask } from './types';

/** File names a folder given to `cwb import` is searched for (not recursively). */
const FOLDER_EXTENSIONS = ['.jsonl', '.json', '.traj', '.zip', '.aider.chat.history.md'];
/** Cline/Roo task folders: only the history is imported, its siblings are read with it. */
const CLINE_SIBLINGS = new Set(['ui_messages.json', 'task_metadata.json']);

export interface ImportRun {
  results: FileImportResult[];
  failed: { file: string; error: string }[];
}

/**
 * Imports files (a folder means the transcript files directly inside it). Each file is
 * imported whole or not at all; a file that fails is reported and the others go on.
 */
export async function importPaths(
  store: ContextStore,
  paths: readonly string[],
  options: ImportOptions = {},
): Promise<ImportRun> {
  const run: ImportRun = { results: [], failed: [] };
  for (const file of expand(paths)) {
    try {
      run.results.push(await importFile(store, file, options));
    } catch (err) {
      if (err instanceof CwbError) run.failed.push({ file, error: err.message });
      else if (isErrno(err)) run.failed.push({ file, error: `${err.code}: ${err.message}` });
      else throw err;
    }
  }
  return run;
}

export async function importFile(
  store: ContextStore,
  file: string,
  options: ImportOptions = {},
): Promise<FileImportResult> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    throw notFound(`${file}: no such file`);
  }
  if (!stat.isFile()) throw badInput(`${file} is not a file`);
  const parse = (f: string): Promise<unknown> => readJsonDocument(f, options.maxJsonBytes);
  let format: ImportFormat;
  let doc: unknown;
  if (options.format === undefined || options.format === 'auto') {
    const sniffed = await sniffFile(file);
    if (sniffed.kind === 'zip') format = 'cwb';
    else if (sniffed.kind === 'jsonl' || sniffed.kind === 'text' || sniffed.kind === 'database')
      format = sniffed.format;
    else {
      doc = await parse(file);
      format = detectDocument(file, doc);
    }
  } else format = options.format;

  if (format === 'cwb') {
    const { tasks, report } = await importArchive(store, file, options);
    return result(file, format, tasks, report);
  }
  let imported: TranscriptImport;
  if (format === 'claude-code') imported = await importClaudeCode(store, file, options);
  else if (format === 'codex') imported = await importCodex(store, file, options);
  else if (format === 'openai')
    imported = await importOpenAiChat(store, file, doc ?? (await parse(file)));
  else if (format === 'swe-agent')
    imported = await importSweAgent(store, file, doc ?? (await parse(file)));
  else if (isDatabaseFormatName(format) && (await isSqliteFile(file)))
    imported = await importSessionFile(store, file, DATABASE_FORMATS[format], undefined);
  else if (!isSessionFormatName(format))
    throw badInput(`${path.basename(file)} is not a ${format} session store (an SQLite database)`);
  else {
    const sessionFormat = SESSION_FORMATS[format];
    // Gemini CLI's parser reads its JSON Lines log or its JSON document itself.
    if (doc === undefined && sessionFormat.input === 'document' && format !== 'gemini-cli')
      doc = await parse(file);
    if (doc !== undefined && !sessionFormat.sniff(doc, path.basename(file)))
      throw badInput(`${path.basename(file)} is not a ${format} session`);
    imported = await importSessionFile(store, file, sessionFormat, doc, {
      ...(options.maxJsonBytes !== undefined && { maxJsonBytes: options.maxJsonBytes }),
      ...(format === 'roo-code' && { agent: 'roo-code' as const }),
    });
  }
  return result(file, format, imported.rows.map(importedTask), imported.report);
}

export function importedTask(row: TaskRow): ImportedTask {
  return {
    uuid: row.uuid,
    title: row.title,
    parent_uuid: row.parent_uuid,
    messages: row.total_messages,
    tool_calls: row.tool_call_count,
    llm_calls: row.llm_call_count,
  };
}

function result(
  file: string,
  format: ImportFormat,
  tasks: ImportedTask[],
  report: TranscriptImport['report'],
): FileImportResult {
  return {
    file: path.resolve(file),
    format,
    tasks,
    skipped: report.skipped,
    skipped_unlisted: report.skippedUnlisted,
    ignored: report.ignored,
  };
}

function expand(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const p of paths) {
    let isDir = false;
    try {
      isDir = fs.statSync(p).isDirectory();
    } catch {
      // reported by importFile as not found
    }
    if (!isDir) {
      files.push(p);
      continue;
    }
    let names = fs
      .readdirSync(p, { withFileTypes: true })
      .filter((e) => e.isFile() && FOLDER_EXTENSIONS.some((ext) => e.name.endsWith(ext)))
      .map((e) => e.name)
      .sort();
    if (names.includes('api_conversation_history.json'))
      names = names.filter((n) => !CLINE_SIBLINGS.has(n));
    // A Cline SDK session folder: its messages files are the sessions (the manifest
    // `<id>.json` and `<id>.compaction.json` beside them are not).
    if (names.some((n) => n.endsWith('.messages.json')))
      names = names.filter((n) => n.endsWith('.messages.json'));
    // An OpenHands session's events/ folder is one session: its first event reads the rest.
    const events = names.filter((n) => /^\d+\.json$/.test(n));
    if (
      path.basename(path.resolve(p)) === 'events' &&
      events.length === names.length &&
      events.length > 0
    )
      names = [events.sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))[0]!];
    files.push(...names.map((n) => path.join(p, n)));
  }
  return files;
}

function isErrno(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string';
}
