/** Export: portable archives, Markdown transcripts and OpenAI messages JSON, all streamed. */
export {
  exportTasks,
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportRequest,
  type ExportResult,
  redactsByDefault,
} from './export-tasks';
export { redactionFor, type RedactionRequest } from './redaction-options';
export { writeHtml } from './html-export';
export { Redactor, describeRedactions, type RedactionCounts } from './redaction';
export { writeArchive, type ArchivedTask } from './archive-export';
export { writeMarkdown, type TranscriptExport } from './markdown-export';
export { writeOpenAi } from './openai-export';
export { openOutput, sinkOf, type OutputTarget, type TextSink } from './output-target';
export {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  MANIFEST_NAME,
  ManifestSchema,
  isTaskFilePath,
  type Manifest,
} from './archive-manifest';
export { estimateExport, type ExportEstimate } from './export-estimate';
