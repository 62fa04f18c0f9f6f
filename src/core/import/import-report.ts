import path from 'node:path';
import type { TaskRow } from '../../shared/task-types';
import type { SkippedItem } from './types';

/** A file with a million bad lines must not produce a million-entry report. */
const MAX_LISTED = 1000;

/**
 * What an importer could not use (skipped, with file and line or item) and what it
 * deliberately left out (ignored, counted by kind). Nothing is thrown for bad content:
 * the rest of the file is still imported.
 */
export class ImportReport {
  readonly skipped: SkippedItem[] = [];
  skippedUnlisted = 0;
  readonly ignored: Record<string, number> = {};
  readonly file: string;

  constructor(filePath: string) {
    this.file = path.basename(filePath);
  }

  skipLine(line: number, error: string): void {
    // The line reader names file and line in its messages; they are fields here already.
    const prefix = `${this.file} line ${line}: `;
    this.push({
      file: this.file,
      line,
      error: error.startsWith(prefix) ? error.slice(prefix.length) : error,
    });
  }

  skipItem(item: string, error: string): void {
    this.push({ file: this.file, item, error });
  }

  ignore(kind: string): void {
    this.ignored[kind] = (this.ignored[kind] ?? 0) + 1;
  }

  private push(item: SkippedItem): void {
    if (this.skipped.length < MAX_LISTED) this.skipped.push(item);
    else this.skippedUnlisted++;
  }
}

/** What one importer produced from one source file. */
export interface TranscriptImport {
  rows: TaskRow[];
  report: ImportReport;
}
