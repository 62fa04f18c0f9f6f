import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../../test/support/temp-dir';
import { resolveRendererRoot } from './renderer-root';

const tempDir = useTempDir();

function tree(files: string[]): string {
  const base = tempDir();
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(base, f)), { recursive: true });
    fs.writeFileSync(path.join(base, f), '');
  }
  return base;
}

describe('resolveRendererRoot', () => {
  it('finds out/renderer beside the built CLI and its chunks', () => {
    const base = tree([
      'package.json',
      'out/main/cli.js',
      'out/main/chunks/x.js',
      'out/renderer/index.html',
    ]);
    const expected = path.join(base, 'out', 'renderer');
    expect(resolveRendererRoot(pathToFileURL(path.join(base, 'out/main/cli.js')).href)).toBe(
      expected,
    );
    expect(resolveRendererRoot(pathToFileURL(path.join(base, 'out/main/chunks/x.js')).href)).toBe(
      expected,
    );
  });

  it('from source, takes the package build and never the unbuilt src/renderer page', () => {
    const base = tree([
      'package.json',
      'src/core/web/r.ts',
      'src/renderer/index.html',
      'out/renderer/index.html',
    ]);
    const from = pathToFileURL(path.join(base, 'src/core/web/r.ts')).href;
    expect(resolveRendererRoot(from)).toBe(path.join(base, 'out', 'renderer'));
    fs.rmSync(path.join(base, 'out'), { recursive: true });
    expect(resolveRendererRoot(from)).toBeNull();
  });
});
