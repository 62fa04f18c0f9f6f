import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// Proves the folder boundaries in eslint.config.js fire (DESIGN.md §3: the folder is the
// runtime contract). The files do not need to exist: lintText only uses the path to pick
// the config.

const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  if (!result) throw new Error('no lint result');
  const fatal = result.messages.find((m) => m.fatal);
  if (fatal) throw new Error(`${file}: ${fatal.message}`);
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('lint boundaries', () => {
  it('renderer may not import node built-ins', async () => {
    const errors = await boundaryErrors(
      'src/renderer/src/probe.tsx',
      "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/src\/renderer is browser code/);
  });

  it('renderer may not import bare node built-ins either', async () => {
    const errors = await boundaryErrors(
      'src/renderer/src/probe.tsx',
      "import { readFile } from 'fs/promises';\nexport const x = readFile;\n",
    );
    expect(errors).toHaveLength(1);
  });

  it('renderer may not import src/core', async () => {
    const errors = await boundaryErrors(
      'src/renderer/src/probe.tsx',
      "import { x } from '../../core/x';\nexport const y = x;\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/src\/core/);
  });

  it('core may not import electron', async () => {
    const errors = await boundaryErrors(
      'src/core/probe.ts',
      "import { app } from 'electron';\nexport const x = app;\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('src/core is plain Node: it must not import electron');
  });

  it('shared may not import node:path', async () => {
    const errors = await boundaryErrors(
      'src/shared/probe.ts',
      "import { join } from 'node:path';\nexport const x = join;\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/src\/shared/);
  });

  it('worker may not import electron', async () => {
    const errors = await boundaryErrors(
      'src/worker/probe.ts',
      "import { utilityProcess } from 'electron';\nexport const x = utilityProcess;\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/must not import electron/);
  });

  it('renderer may import src/shared', async () => {
    const errors = await boundaryErrors(
      'src/renderer/src/probe.tsx',
      "import type { TaskStatus } from '../../shared/task-types';\nexport type X = TaskStatus;\n",
    );
    expect(errors).toEqual([]);
  });

  it('core may import node built-ins and src/shared', async () => {
    const errors = await boundaryErrors(
      'src/core/probe.ts',
      "import { join } from 'node:path';\nimport type { TaskStatus } from '../shared/task-types';\nexport const x = join;\nexport type X = TaskStatus;\n",
    );
    expect(errors).toEqual([]);
  });
});
