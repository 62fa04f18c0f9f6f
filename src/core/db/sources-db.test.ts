import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { openDatabase, type Db } from './open-database';
import { openSourcesDb } from './sources-db';

const tempDir = useTempDir();

/** The table's columns (name, type, not null, default, key) and its indexes. */
function shapeOf(db: Db): unknown {
  return {
    columns: db.pragma('table_info(source_files)'),
    indexes: (db.pragma('index_list(source_files)') as { name: string }[]).map((i) => ({
      ...i,
      columns: db.pragma(`index_info(${i.name})`),
    })),
  };
}

describe('sources.db', () => {
  it("holds source_files in the shape tasks.db's migrations give it, and opens again unchanged", () => {
    const root = tempDir();
    const tasks = openDatabase(path.join(root, 'tasks.db'));
    try {
      const expected = shapeOf(tasks);
      expect(JSON.stringify(expected)).toContain('"held"');
      // Made, then opened again (its migration is not run twice).
      for (let open = 0; open < 2; open++) {
        const sources = openSourcesDb(root);
        try {
          expect(sources.pragma('user_version', { simple: true })).toBe(1);
          expect(shapeOf(sources)).toEqual(expected);
        } finally {
          sources.close();
        }
      }
    } finally {
      tasks.close();
    }
  });
});
