import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readLinesSync } from '../jsonl/line-reader';
import { looksBinary } from './binary-file';
import { confinePath, isInside, show, toDisplay } from './confine-path';
import { defineTool, functionTool } from './define-tool';
import { cutToChars } from './output-limits';
import { optional } from './tool-args';
import type { ToolContext } from './tool-types';
import { failure, success } from './tool-types';

export const MAX_GREP_MATCHES = 200;
export const MAX_GREP_FILE_BYTES = 10 * 1024 * 1024;

/** Folders that are never searched: history and installed packages, not the project. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

/** A matching line is shown up to this many characters: enough to recognise it. */
const MATCH_LINE_CHARS = 500;

/** Lines longer than this (minified bundles) are not searched rather than buffered. */
const SEARCHED_LINE_BYTES = 64 * 1024;

const args = z.object({
  pattern: z.string().min(1),
  path: optional(z.string()),
  ignore_case: optional(z.boolean()),
});

interface Search {
  re: RegExp;
  realRoot: string;
  matches: string[];
  files: number;
  filesMatched: number;
  skippedBinary: number;
  skippedLarge: number;
  skippedUnreadable: number;
  capped: boolean;
  signal: AbortSignal | undefined;
}

export const grepTool = defineTool({
  definition: functionTool(
    'grep',
    [
      'Search file contents with a JavaScript regular expression, recursively under a path of the working directory.',
      'Prints each matching line as "file:line: text" (file relative to the working directory, line numbered from 1).',
      `Skips .git and node_modules, binary files and files over ${MAX_GREP_FILE_BYTES / 1024 / 1024} MB; stops after ${MAX_GREP_MATCHES} matches.`,
    ].join(' '),
    {
      pattern: {
        type: 'string',
        description:
          'JavaScript RegExp source, without slashes or flags, e.g. "function\\\\s+main" or "TODO|FIXME". Matched against each line.',
      },
      path: {
        type: 'string',
        description:
          'File or directory to search, relative to the working directory. Default "." (everything).',
      },
      ignore_case: {
        type: 'boolean',
        description: 'Match letters case-insensitively. Default false.',
      },
    },
    ['pattern'],
  ),
  args,
  async execute({ pattern, path: given = '.', ignore_case: ignoreCase = false }, ctx) {
    let re: RegExp;
    try {
      re = new RegExp(pattern, ignoreCase ? 'i' : '');
    } catch (err) {
      return failure(`invalid regular expression ${show(pattern)}: ${(err as Error).message}`);
    }
    const target = confinePath(ctx.workdir, given);
    if (!fs.existsSync(target.real)) return failure(`path ${show(target.display)} does not exist`);
    const search = newSearch(re, ctx);
    if (fs.statSync(target.real).isDirectory()) await walk(target.real, search);
    else searchFile(target.real, search);
    if (ctx.signal?.aborted) return failure('grep was cancelled');
    return success(report(search, pattern, target.display));
  },
});

function newSearch(re: RegExp, ctx: ToolContext): Search {
  return {
    re,
    realRoot: fs.realpathSync(ctx.workdir),
    matches: [],
    files: 0,
    filesMatched: 0,
    skippedBinary: 0,
    skippedLarge: 0,
    skippedUnreadable: 0,
    capped: false,
    signal: ctx.signal,
  };
}

/**
 * Depth-first in name order, so results are stable. Directory reads are awaited, which lets
 * an abort arrive between folders. Symlinked folders are not followed (no loops, no
 * escapes); symlinked files are searched when their target lies inside the working directory.
 */
async function walk(dir: string, search: Search): Promise<void> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch (_err) {
    search.skippedUnreadable += 1;
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (search.capped || search.signal?.aborted) return;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) await walk(full, search);
    } else if (entry.isFile()) {
      searchFile(full, search);
    } else if (entry.isSymbolicLink() && isFileInside(full, search.realRoot)) {
      searchFile(full, search);
    }
  }
}

function isFileInside(link: string, realRoot: string): boolean {
  try {
    return isInside(realRoot, fs.realpathSync(link)) && fs.statSync(link).isFile();
  } catch (_err) {
    return false;
  }
}

function searchFile(file: string, search: Search): void {
  try {
    const { size } = fs.statSync(file);
    if (size > MAX_GREP_FILE_BYTES) {
      search.skippedLarge += 1;
      return;
    }
    search.files += 1;
    if (size === 0) return;
    if (looksBinary(file)) {
      search.skippedBinary += 1;
      return;
    }
    const name = toDisplay(path.relative(search.realRoot, file));
    let matched = false;
    for (const entry of readLinesSync(file, { maxLineBytes: SEARCHED_LINE_BYTES })) {
      if ('tooLong' in entry || !search.re.test(entry.text)) continue;
      // One match past the cap proves there are more, so the note never cries wolf.
      if (search.matches.length >= MAX_GREP_MATCHES) {
        search.capped = true;
        return;
      }
      search.matches.push(`${name}:${entry.lineNo}: ${cutToChars(entry.text, MATCH_LINE_CHARS)}`);
      if (!matched) search.filesMatched += 1;
      matched = true;
    }
  } catch (_err) {
    // Deleted or made unreadable while we walked: one file does not spoil the search.
    search.skippedUnreadable += 1;
  }
}

function report(search: Search, pattern: string, where: string): string {
  const lines = [...search.matches];
  const fileWord = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;
  if (search.matches.length === 0) {
    lines.push(
      `no matches for ${show(pattern)} under ${show(where)} (${fileWord(search.files)} searched)`,
    );
  } else if (search.capped) {
    lines.push(
      `[stopped after ${MAX_GREP_MATCHES} matches; there are more: narrow the pattern or the path]`,
    );
  } else {
    const n = search.matches.length;
    lines.push(`[${n} match${n === 1 ? '' : 'es'} in ${fileWord(search.filesMatched)}]`);
  }
  const skipped: string[] = [];
  if (search.skippedBinary > 0) skipped.push(`${search.skippedBinary} binary`);
  if (search.skippedLarge > 0) {
    skipped.push(`${search.skippedLarge} over ${MAX_GREP_FILE_BYTES / 1024 / 1024} MB`);
  }
  if (search.skippedUnreadable > 0) skipped.push(`${search.skippedUnreadable} unreadable`);
  if (skipped.length > 0) lines.push(`(skipped files: ${skipped.join(', ')})`);
  return lines.join('\n');
}
