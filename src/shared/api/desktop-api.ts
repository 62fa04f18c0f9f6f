import type { ApiResult } from './api-result';

/**
 * What only the desktop app offers the page: the system's file and folder pickers, so an
 * import or export starts from a real host path (a browser on `cwb serve` uploads and
 * downloads instead). Separate from the contract: `cwb serve` has no such operations.
 */
export const IPC_PICK_IMPORT_FILES = 'cwb:desktop:pick-import-files';
export const IPC_PICK_EXPORT_FOLDER = 'cwb:desktop:pick-export-folder';

/** `window.desktop` as the preload exposes it (answers in the result envelope, like window.api). */
export interface DesktopApi {
  /** The transcript files chosen in the open dialog ([] when cancelled). */
  pickImportFiles(): Promise<ApiResult<string[]>>;
  /** The folder chosen for an export (null when cancelled). */
  pickExportFolder(): Promise<ApiResult<string | null>>;
}

/** Extensions the import dialog offers first (every importer's format). */
export const IMPORT_EXTENSIONS = ['zip', 'jsonl', 'json', 'traj'] as const;
