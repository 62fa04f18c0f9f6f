import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../jsonl/atomic-write';
import { confinePath, show } from './confine-path';
import { defineTool, functionTool } from './define-tool';
import { failure, success } from './tool-types';

const args = z.object({ path: z.string().min(1), content: z.string() });

export const writeFileTool = defineTool({
  definition: functionTool(
    'write_file',
    [
      'Create or replace a text file in the working directory with the given content (UTF-8).',
      'Missing parent directories are created. The file is replaced atomically: readers see the old or the new content, never a mix.',
      'To change part of a file, read it first and write the whole new content.',
    ].join(' '),
    {
      path: {
        type: 'string',
        description: 'File path, relative to the working directory.',
      },
      content: {
        type: 'string',
        description: 'The complete new content of the file.',
      },
    },
    ['path', 'content'],
  ),
  args,
  execute({ path: given, content }, ctx) {
    const target = confinePath(ctx.workdir, given);
    const name = show(target.display);
    if (target.display === '.')
      return failure('write_file needs a file path, not the working directory');
    let before: fs.Stats | undefined;
    try {
      before = fs.statSync(target.real);
    } catch (_err) {
      before = undefined;
    }
    if (before?.isDirectory()) return failure(`${name} is a directory`);
    if (before && !before.isFile()) return failure(`${name} is not a regular file`);
    fs.mkdirSync(path.dirname(target.real), { recursive: true });
    // Into the real path: a symlink inside the working directory keeps pointing at its
    // target, which gets the new content, instead of being replaced by a plain file.
    writeFileAtomic(target.real, content);
    // The temp file was created with default permissions; an executable script stays one.
    if (before) fs.chmodSync(target.real, before.mode & 0o7777);
    const bytes = Buffer.byteLength(content, 'utf8');
    return success(`wrote ${bytes} bytes to ${name} (${before ? 'replaced' : 'created'})`);
  },
});
