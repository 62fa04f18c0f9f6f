import { fileURLToPath } from 'node:url';

/**
 * Files of the built app, relative to out/main/index.js (electron-vite layout): the
 * sandboxed preload, the renderer page, and the task process entry.
 */
export function mainPaths(base: string = import.meta.url): {
  preload: string;
  rendererFile: string;
  worker: string;
} {
  return {
    preload: fileURLToPath(new URL('../preload/index.cjs', base)),
    rendererFile: fileURLToPath(new URL('../renderer/index.html', base)),
    worker: fileURLToPath(new URL('./worker.cjs', base)),
  };
}
