import fs from 'node:fs';
import path from 'node:path';
import { badInput } from '../errors';

export interface ConfinedPath {
  /** The path resolved against the working directory, symlinks left as they are. */
  absolute: string;
  /** The same path with every existing symlink resolved: what the file system will touch. */
  real: string;
  /** Relative to the working directory, '/'-separated, '.' for the directory itself. */
  display: string;
}

/**
 * Resolves a path given by the model (or a user) inside `workdir` and refuses anything that
 * leads out of it: `..` climbing above it, absolute paths elsewhere, NUL bytes, and symlinks
 * whose real target is outside. The symlink check runs realpath on the deepest part of the
 * path that exists, so a file that does not exist yet under a symlinked folder pointing
 * outside is refused too.
 *
 * Known limit: the file system can change between this check and the tool's use of the
 * path (a symlink swapped in by a concurrent command). run_command already gives the model a
 * shell when it is enabled; this confinement is about mistakes and injected instructions,
 * not a sandbox against a racing attacker.
 */
export function confinePath(workdir: string, given: string): ConfinedPath {
  if (given.includes('\0')) throw badInput(`path ${show(given)} contains a NUL byte`);
  const root = path.resolve(workdir);
  let realRoot: string;
  try {
    realRoot = fs.realpathSync.native(root);
  } catch (_err) {
    throw badInput(`the working directory ${root} does not exist`);
  }
  const target = path.resolve(root, given === '' ? '.' : given);
  // An absolute path may name the working directory through its real path (/tmp is
  // /private/tmp on macOS), so both spellings of the root count as inside.
  const lexicallyInside = isInside(root, target);
  if (!lexicallyInside && !isInside(realRoot, target)) throw outside(given);

  const { existing, rest } = deepestExisting(target);
  let realExisting: string;
  try {
    realExisting = fs.realpathSync.native(existing);
  } catch (_err) {
    // lstat found it but realpath cannot follow it: a dangling or looping symlink, whose
    // target we cannot check, so writing through it is refused.
    throw badInput(`path ${show(given)} goes through a broken symlink (${existing})`);
  }
  const real = rest.length > 0 ? path.join(realExisting, ...rest) : realExisting;
  if (!isInside(realRoot, real)) {
    throw outside(given, ` (a symlink leads to ${realExisting})`);
  }
  const relative = path.relative(lexicallyInside ? root : realRoot, target);
  return { absolute: target, real, display: toDisplay(relative) };
}

/** True when `candidate` is `root` or below it (both absolute and normalized). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  if (relative === '') return true;
  if (relative === '..' || relative.startsWith(`..${path.sep}`)) return false;
  // On Windows a path on another drive comes back absolute.
  return !path.isAbsolute(relative);
}

/** '/'-separated relative path for messages, the same on every platform. */
export function toDisplay(relative: string): string {
  if (relative === '') return '.';
  return path.sep === '/' ? relative : relative.split(path.sep).join('/');
}

/** A path argument quoted for an error message, cut when absurdly long. */
export function show(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
}

function outside(given: string, why = ''): Error {
  return badInput(`path ${show(given)} is outside the working directory${why}`);
}

/**
 * The longest prefix of `target` that exists (lstat: a symlink counts as existing even when
 * dangling) and the names below it that do not exist yet.
 */
function deepestExisting(target: string): { existing: string; rest: string[] } {
  const rest: string[] = [];
  let current = target;
  for (;;) {
    try {
      fs.lstatSync(current);
      return { existing: current, rest };
    } catch (_err) {
      const parent = path.dirname(current);
      if (parent === current) return { existing: current, rest };
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}
