/**
 * Import: our archives and other agents' transcripts into the contexts store. Each
 * importer documents its mapping at the top of its file.
 */
export { importPaths, importFile, type ImportRun } from './import-file';
export { detectFormat, sniffFile, detectDocument } from './detect-format';
export { importArchive, ARCHIVE_LIMITS } from './archive-import';
export { importClaudeCode } from './claude-code';
export { importCodex } from './codex';
export { importOpenAiChat } from './openai-chat';
export { importSweAgent } from './swe-agent';
export { readJsonDocument } from './json-document';
export { rederiveImports, type RederiveResult } from './rederive-imports';
export { importSessionFile } from './session-import';
export { SESSION_FORMATS, type SessionFormatName } from './session-formats';
export {
  AGENTS,
  AGENT_LABELS,
  type AgentId,
  type SessionEvent,
  type SessionFormat,
  type SessionMessage,
  type SessionMeta,
} from './session-format';
export {
  IMPORT_FORMATS,
  DEFAULT_MAX_JSON_BYTES,
  REASONING_NAME,
  type ImportFormat,
  type ImportOptions,
  type ImportedTask,
  type FileImportResult,
  type SkippedItem,
} from './types';
