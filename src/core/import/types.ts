import { IMPORT_FILE_FORMATS } from '../../shared/api/transfer-api';
import type { UuidConflict } from '../store/task-import';

/** The transcript formats `cwb import` understands (one list, in the API contract). */
export const IMPORT_FORMATS = IMPORT_FILE_FORMATS;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportOptions {
  /** Skip detection and read the file as this format. */
  format?: ImportFormat | 'auto';
  /** Our archives only: what to do when a task's uuid exists already (default keep-both). */
  onConflict?: UuidConflict;
  /** JSONL lines longer than this are reported and skipped, never buffered (default 64 MiB). */
  maxLineBytes?: number;
  /** Whole-document JSON files (OpenAI chat, SWE-agent) larger than this are refused (default 64 MiB). */
  maxJsonBytes?: number;
  /** Archives: the largest uncompressed entry accepted (default 8 GiB). */
  maxEntryBytes?: number;
  /** Archives: the largest total uncompressed size accepted (default 32 GiB). */
  maxTotalBytes?: number;
  /** Archives: the most entries accepted (default 500,000). */
  maxEntries?: number;
}

/** Something in a source file that could not be used: reported, skipped, the rest imported. */
export interface SkippedItem {
  file: string;
  /** 1-based line of a JSONL file. */
  line?: number;
  /** Where in a JSON document (e.g. "run 3, message 5"). */
  item?: string;
  error: string;
}

/** One task an import created, with the counts tasks.db now holds for it. */
export interface ImportedTask {
  uuid: string;
  title: string | null;
  parent_uuid: string | null;
  messages: number;
  tool_calls: number;
  llm_calls: number;
  /** Archives: the uuid the task had in the archive when it was given a new one (keep-both). */
  original_uuid?: string;
  /** Archives: an existing task with this uuid was replaced. */
  replaced?: boolean;
}

export interface FileImportResult {
  file: string;
  format: ImportFormat;
  tasks: ImportedTask[];
  skipped: SkippedItem[];
  /** Skipped items beyond those listed (the list is capped). */
  skipped_unlisted: number;
  /** Entries understood but deliberately not imported, by kind (e.g. Claude Code `system` notices). */
  ignored: Record<string, number>;
}

/** As DEFAULT_MAX_LINE_BYTES: one JSON value read whole is never larger than a line may be. */
export const DEFAULT_MAX_JSON_BYTES = 64 * 1024 * 1024;

/**
 * Assistant messages that hold a model's reasoning (Claude thinking blocks, Codex reasoning
 * items) carry this `name`. They are history-only: kept in messages.jsonl, not sent back.
 */
export const REASONING_NAME = 'reasoning';
