/**
 * The repository stands alone: a clone with nothing beside it passes its tests. These checks
 * catch the ways that broke before: code reaching for ../shared, a fixture copied in without
 * its origin, and CI testing the checkout it was handed instead of a fresh clone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REAL_FIXTURES } from './support/real-fixtures';
import { REPO_ROOT } from './support/run-ts';

const CODE_FOLDERS = ['src', 'test', 'bench', 'scripts'];
const CODE_FILE = /\.(ts|tsx|js|mjs|cjs)$/;

/** Ways a path outside the repository gets spelled (each one was in the code once). */
const OUTSIDE = [
  /\.\.\/shared\/fixtures/,
  /'shared',\s*'fixtures'/,
  /\/work\/shared/,
  /REPO_ROOT,\s*'\.\.'/,
  /'\.\.',\s*'shared'/,
];

function codeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : codeFiles(full);
    return CODE_FILE.test(entry.name) ? [full] : [];
  });
}

describe('the repository stands alone', () => {
  it('no source, test, bench or script file reaches for a path outside the repository', () => {
    const offenders: string[] = [];
    for (const folder of CODE_FOLDERS) {
      for (const file of codeFiles(path.join(REPO_ROOT, folder))) {
        if (file === import.meta.filename) continue;
        const lines = fs.readFileSync(file, 'utf8').split('\n');
        lines.forEach((line, i) => {
          if (OUTSIDE.some((re) => re.test(line))) {
            offenders.push(`${path.relative(REPO_ROOT, file)}:${i + 1}: ${line.trim()}`);
          }
        });
      }
    }
    expect(offenders).toEqual([]);
  });

  it('every real fixture is in the repository and named in its README', () => {
    const readme = fs.readFileSync(path.join(REAL_FIXTURES, 'README.md'), 'utf8');
    // Every file at any depth (Aider's and Cline's live two folders down), by its own path.
    const files = fs
      .readdirSync(REAL_FIXTURES, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile() && d.parentPath !== REAL_FIXTURES)
      .map((d) =>
        path.relative(REAL_FIXTURES, path.join(d.parentPath, d.name)).split(path.sep).join('/'),
      );
    expect(files.length).toBeGreaterThanOrEqual(6);
    expect(files.filter((f) => !readme.includes(`\`${f}\``))).toEqual([]);
  });

  it('CI runs the README test command in a fresh clone of the checkout', () => {
    const ci = fs.readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8');
    const clone = ci.search(/^git clone .*"\$PWD"/m);
    const cd = ci.search(/^cd "\$clone_parent\/repo"$/m);
    const testCommand = ci.search(/^ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm install && npm test$/m);
    expect(clone).toBeGreaterThan(0);
    expect(cd).toBeGreaterThan(clone);
    expect(testCommand).toBeGreaterThan(cd);
  });
});
