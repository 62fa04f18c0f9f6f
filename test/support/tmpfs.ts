import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** Whether this machine lets us mount a tmpfs (root, Linux, mount(8)), and why not. */
export function probeTmpfs(): { ok: boolean; reason: string } {
  if (process.platform !== 'linux') return { ok: false, reason: 'tmpfs needs Linux' };
  if (process.getuid?.() !== 0) return { ok: false, reason: 'mounting a tmpfs needs root' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return { ok: true, reason: '' };
  } catch (err) {
    return {
      ok: false,
      reason: `mount -t tmpfs failed: ${String((err as Error).message).split('\n')[0]}`,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Small real disks for a test file: `mount(dir, size)` mounts a tmpfs there; every mount is
 * undone (lazily if still busy) after the file's tests, and `removeAfter` folders removed.
 */
export function useTmpfs(): {
  mount(dir: string, size: string): void;
  grow(dir: string, size: string): void;
  removeAfter(dir: string): void;
} {
  const mounted: string[] = [];
  const folders: string[] = [];
  afterAll(() => {
    for (const dir of mounted.splice(0)) {
      try {
        execFileSync('umount', [dir], { stdio: 'pipe' });
      } catch {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      }
    }
    for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    mount(dir, size) {
      fs.mkdirSync(dir, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
      mounted.push(dir);
    },
    grow(dir, size) {
      execFileSync('mount', ['-o', `remount,size=${size}`, dir]);
    },
    removeAfter(dir) {
      folders.push(dir);
    },
  };
}
