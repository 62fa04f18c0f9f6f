import { z } from 'zod';
import { hostPathSchema, taskUuidSchema } from './common-schemas';
import { operation } from './operation';

export const EXPORT_FORMATS = ['archive', 'markdown', 'openai', 'html'] as const;

/**
 * Redaction before an export is written: API keys and tokens by pattern plus the secrets
 * the host's configuration and environment know (`secrets`), and optionally home folders in
 * paths (`home`). Absent: on for html, off for the other formats.
 */
export const exportRedactionSchema = z.strictObject({
  secrets: z.boolean(),
  home: z.boolean().default(false),
});
/** The transcript formats `cwb import` understands; `cwb` is our own archive. */
export const IMPORT_FILE_FORMATS = [
  'cwb',
  'claude-code',
  'codex',
  'openai',
  'swe-agent',
  'gemini-cli',
  'openhands',
  'cline',
  'roo-code',
  'aider',
  'pi',
  'openclaw',
  'opencode',
  'kilo',
  'copilot-cli',
  'qwen-code',
  'cursor',
  'droid',
  'crush',
  'goose',
  'zed',
  'amp',
  'continue',
] as const;
/** What an import may ask for: a format, or `auto` to detect it. */
export const IMPORT_FORMATS = ['auto', ...IMPORT_FILE_FORMATS] as const;

export const exportTasksInput = z.strictObject({
  uuids: z.array(taskUuidSchema).min(1).max(1000),
  format: z.enum(EXPORT_FORMATS),
  /** markdown and openai: the current context instead of the full history. */
  current: z.boolean().default(false),
  /** A file or a folder on the host; default: the host's export folder. */
  output: hostPathSchema.optional(),
  redaction: exportRedactionSchema.optional(),
});

/** What an export would write, asked before it is written (the export dialog's size). */
export const estimateExportInput = z.strictObject({
  uuids: z.array(taskUuidSchema).min(1).max(1000),
  format: z.enum(EXPORT_FORMATS),
  current: z.boolean().default(false),
});

export interface ExportEstimateInfo {
  /** About how many bytes the export would write in all (from samples of the task files). */
  bytes: number;
  /** How many files: one archive, or one transcript per task. */
  files: number;
}

export interface ExportedFileInfo {
  path: string;
  bytes: number;
  tasks: string[];
}

export interface ExportResultInfo {
  format: (typeof EXPORT_FORMATS)[number];
  files: ExportedFileInfo[];
  /**
   * What was redacted by kind (`anthropic-key`, `home-folder`…): in how many places, how many
   * different secrets; null: not redacted.
   */
  redactions: Record<string, { places: number; secrets: number }> | null;
}

export const importFilesInput = z.strictObject({
  /** Files (or folders: the transcripts directly inside) on the host. */
  paths: z.array(hostPathSchema).min(1).max(100),
  format: z.enum(IMPORT_FORMATS).default('auto'),
  /** Our archives: what to do when a task's id exists already. */
  onConflict: z.enum(['keep-both', 'replace']).default('keep-both'),
});

export interface ImportedTaskInfo {
  uuid: string;
  title: string | null;
  parent_uuid: string | null;
  messages: number;
  tool_calls: number;
  llm_calls: number;
  original_uuid?: string;
  replaced?: boolean;
}

export interface ImportedFileInfo {
  file: string;
  format: Exclude<(typeof IMPORT_FORMATS)[number], 'auto'>;
  tasks: ImportedTaskInfo[];
  skipped: { file: string; line?: number; item?: string; error: string }[];
  skipped_unlisted: number;
  ignored: Record<string, number>;
}

export interface ImportResultInfo {
  results: ImportedFileInfo[];
  failed: { file: string; error: string }[];
}

export const transferOperations = {
  exportTasks: operation(exportTasksInput).returns<ExportResultInfo>(),
  estimateExport: operation(estimateExportInput).returns<ExportEstimateInfo>(),
  importFiles: operation(importFilesInput).returns<ImportResultInfo>(),
};
