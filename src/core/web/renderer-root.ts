import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the built UI is: the `renderer` folder of the `out/` the running code was built
 * into (`out/main/cli.js` or a chunk of it), or, running from source (tsx), `out/renderer`
 * of the package. Never `src/renderer`: that holds the unbuilt page. Null when not built.
 */
export function resolveRendererRoot(fromUrl: string = import.meta.url): string | null {
  const here = path.dirname(fileURLToPath(fromUrl));
  const candidates: string[] = [];
  let dir = here;
  let packageRoot: string | undefined;
  for (;;) {
    if (path.basename(dir) === 'out') candidates.push(path.join(dir, 'renderer'));
    if (!packageRoot && fs.existsSync(path.join(dir, 'package.json'))) packageRoot = dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (packageRoot) candidates.push(path.join(packageRoot, 'out', 'renderer'));
  return candidates.find((c) => fs.existsSync(path.join(c, 'index.html'))) ?? null;
}
