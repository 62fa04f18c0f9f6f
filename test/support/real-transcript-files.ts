import fs from 'node:fs';
import path from 'node:path';
import { REAL_FIXTURES } from './real-fixtures';

/** Files beside a transcript that are read with it, never imported on their own. */
const SIBLINGS = new Set(['README.md', 'ui_messages.json', 'task_metadata.json']);

/** A Cline SDK session's manifest (`<id>.json` beside `<id>.messages.json`) or its database as SQL. */
function clineSdkSidecar(dir: string, name: string): boolean {
  if (name.endsWith('.sql')) return true;
  return (
    name.endsWith('.json') &&
    !name.endsWith('.messages.json') &&
    fs.existsSync(path.join(dir, name.replace(/\.json$/, '.messages.json')))
  );
}

/**
 * Every file of test/fixtures/real that `cwb import` may take on its own (OpenHands event
 * folders are left out: their events are one session). Layouts that are not one file per
 * session (a database's storage folders) fail to import and are left to their own tests:
 * callers check that most files imported, not that all did.
 */
export function realTranscriptFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'events') walk(p);
      } else if (!SIBLINGS.has(e.name) && !clineSdkSidecar(dir, e.name)) files.push(p);
    }
  };
  walk(REAL_FIXTURES);
  return files;
}
