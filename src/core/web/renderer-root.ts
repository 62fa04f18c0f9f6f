import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the built UI is: `out/renderer` beside the built CLI (`out/main/cli.js`, or a chunk
 * under `out/main/chunks/`), or, running from source (tsx), `out/renderer` of the package.
 * Returns null when the UI has not been built.
 */
export function resolveRendererRoot(fromUrl: string = import.meta.url): string | null {
  const here = path.dirname(fileURLToPath(fromUrl));
  const candidates = [path.join(here, '..', 'renderer'), path.join(here, '..', '..', 'renderer')];
  let dir = here;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) {
    dir = path.dirname(dir);
  }
  candidates.push(path.join(dir, 'out', 'renderer'));
  return candidates.find((c) => fs.existsSync(path.join(c, 'index.html'))) ?? null;
}
