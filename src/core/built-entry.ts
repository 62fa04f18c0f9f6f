import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * An entry electron-vite built beside the bundle the calling code is in (`out/main/NAME`,
 * the caller sitting in out/main/ or in a shared chunk of out/main/chunks/); undefined when
 * that code runs from the TypeScript source (tests, tsx), which starts the entry's source.
 */
export function builtEntry(fromUrl: string, name: string): string | undefined {
  if (fromUrl.endsWith('.ts')) return undefined;
  const here = path.dirname(fileURLToPath(fromUrl));
  for (const dir of [here, path.dirname(here)]) {
    const built = path.join(dir, name);
    if (fs.existsSync(built)) return built;
  }
  return undefined;
}
