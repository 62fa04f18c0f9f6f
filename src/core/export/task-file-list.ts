import fs from 'node:fs';
import path from 'node:path';
import { TASK_FILES } from '../store/contexts-layout';
import { isTaskFilePath } from './archive-manifest';

export interface TaskFile {
  /** Relative to the task folder, `/`-separated (the name inside the archive). */
  relative: string;
  absolute: string;
}

/**
 * The files of a task folder that belong in an archive, in a stable order, plus the names
 * left out (temporary files, anything unknown). Only names are listed, no content read.
 * Symbolic links are never followed: only regular files qualify.
 */
export function listTaskFiles(dir: string): { files: TaskFile[]; leftOut: string[] } {
  const files: TaskFile[] = [];
  const leftOut: string[] = [];
  const visit = (relativeDir: string): void => {
    const absoluteDir = path.join(dir, relativeDir);
    const entries = fs.readdirSync(absoluteDir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      if (entry.isDirectory() && relativeDir === '' && entry.name === TASK_FILES.toolOutputs) {
        visit(relative);
      } else if (entry.isFile() && isTaskFilePath(relative)) {
        files.push({ relative, absolute: path.join(dir, ...relative.split('/')) });
      } else leftOut.push(relative);
    }
  };
  visit('');
  return { files, leftOut };
}
