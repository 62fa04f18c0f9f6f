import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { confinePath, show } from './confine-path';
import { defineTool, functionTool } from './define-tool';
import { optional } from './tool-args';
import { failure, success } from './tool-types';

export const MAX_LIST_ENTRIES = 1000;

const args = z.object({ path: optional(z.string()) });

export const listDirTool = defineTool({
  definition: functionTool(
    'list_dir',
    [
      'List a directory in the working directory (not recursive).',
      'One entry per line, sorted by name: directories end with "/", files show their size in bytes, symlinks show their target after "->".',
      `At most ${MAX_LIST_ENTRIES} entries are shown; a note says how many there are in all.`,
    ].join(' '),
    {
      path: {
        type: 'string',
        description:
          'Directory path, relative to the working directory. Default "." (the working directory).',
      },
    },
    [],
  ),
  args,
  execute({ path: given = '.' }, ctx) {
    const target = confinePath(ctx.workdir, given);
    const name = show(target.display);
    if (!fs.existsSync(target.real)) return failure(`directory ${name} does not exist`);
    if (!fs.statSync(target.real).isDirectory()) {
      return failure(`${name} is not a directory; use read_file to read a file`);
    }
    const { names, total } = firstNames(target.real, MAX_LIST_ENTRIES);
    if (total === 0) return success(`(directory ${name} is empty)`);
    const lines = [`${name}: ${total} entr${total === 1 ? 'y' : 'ies'}`];
    for (const entry of names) lines.push(describeEntry(target.real, entry));
    if (total > names.length) {
      lines.push(
        `[showing the first ${names.length} of ${total} entries by name; list a subdirectory or use grep to narrow down]`,
      );
    }
    return success(lines.join('\n'));
  },
});

/**
 * The `max` smallest names of a directory and how many it has, without holding every name
 * of a huge directory: the kept list is trimmed whenever it doubles.
 */
function firstNames(dir: string, max: number): { names: string[]; total: number } {
  const handle = fs.opendirSync(dir);
  let names: string[] = [];
  let total = 0;
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
      total += 1;
      names.push(entry.name);
      if (names.length >= 2 * max) names = sortNames(names).slice(0, max);
    }
  } finally {
    handle.closeSync();
  }
  return { names: sortNames(names).slice(0, max), total };
}

/** Code-unit order: the same on every machine, whatever the locale. */
function sortNames(names: string[]): string[] {
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function describeEntry(dir: string, entryName: string): string {
  const full = path.join(dir, entryName);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(full);
  } catch (err) {
    // Removed between the listing and the lstat, or not readable.
    return `${entryName}  (unreadable: ${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (stat.isSymbolicLink()) return describeSymlink(full, entryName);
  if (stat.isDirectory()) return `${entryName}/`;
  if (stat.isFile()) return `${entryName}  ${stat.size} bytes`;
  return `${entryName}  (${kindOf(stat)})`;
}

function describeSymlink(full: string, entryName: string): string {
  let target: string;
  try {
    target = fs.readlinkSync(full);
  } catch (_err) {
    return `${entryName} -> ?`;
  }
  try {
    return `${entryName}${fs.statSync(full).isDirectory() ? '/' : ''} -> ${target}`;
  } catch (_err) {
    return `${entryName} -> ${target}  (broken)`;
  }
}

function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'device';
  return 'special file';
}
