import { ApiError, isApiResult, unwrapResult } from '../../../../shared/api/api-result';
import type {
  EXPORT_FORMATS,
  ExportResultInfo,
  ImportResultInfo,
} from '../../../../shared/api/transfer-api';

/**
 * `cwb serve` only: a browser cannot give the host a path, so files are uploaded
 * (POST /api/upload) and exports fetched once by id (GET /api/download/<id>). The desktop
 * app has real paths and uses importFiles / exportTasks directly.
 */
export function canUpload(): boolean {
  return !window.api;
}

/** The desktop app's open dialog: the chosen transcript paths ([] when cancelled). */
export async function pickImportFiles(): Promise<string[]> {
  if (!window.desktop) return [];
  return unwrapResult(await window.desktop.pickImportFiles());
}

/** The desktop app's folder dialog: the chosen export folder (null when cancelled). */
export async function pickExportFolder(): Promise<string | null> {
  if (!window.desktop) return null;
  return unwrapResult(await window.desktop.pickExportFolder());
}

function authHeader(): Record<string, string> {
  const token = sessionStorage.getItem('cwb.token');
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function envelope<T>(response: Response): Promise<T> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (!isApiResult(body))
    throw new ApiError({ code: 'transport', message: `the server answered ${response.status}` });
  return unwrapResult(body) as T;
}

export async function uploadAndImport(file: File): Promise<ImportResultInfo> {
  const response = await fetch(`/api/upload?name=${encodeURIComponent(file.name)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/octet-stream', ...authHeader() },
    body: file,
    credentials: 'same-origin',
  });
  return envelope<ImportResultInfo>(response);
}

export interface PreparedDownload {
  id: string;
  name: string;
  bytes: number;
}

export async function prepareDownload(input: {
  uuids: string[];
  format: (typeof EXPORT_FORMATS)[number];
  current: boolean;
  redaction: { secrets: boolean; home: boolean };
  /** The file name, for a one-task export. */
  name?: string;
}): Promise<{ files: PreparedDownload[]; redactions: ExportResultInfo['redactions'] }> {
  const response = await fetch('/api/download', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...authHeader() },
    body: JSON.stringify(input),
    credentials: 'same-origin',
  });
  return envelope<{ files: PreparedDownload[]; redactions: ExportResultInfo['redactions'] }>(
    response,
  );
}

/** Starts the browser's download (the session cookie authenticates the GET). */
export function startDownload(file: PreparedDownload): void {
  const a = document.createElement('a');
  a.href = `/api/download/${encodeURIComponent(file.id)}`;
  a.download = file.name;
  document.body.append(a);
  a.click();
  a.remove();
}
