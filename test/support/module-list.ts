import fs from 'node:fs';
import path from 'node:path';

/**
 * A preload for a Node process (`--require`) that writes, when the process exits, the modules
 * it loaded. CommonJS, so it loads no ES module loader itself. `builtins()` reads back the
 * built-in ones as `NativeModule <name>` entries.
 */
export function moduleListHook(dir: string): { hook: string; builtins(): string[] } {
  const list = path.join(dir, 'modules.txt');
  const hook = path.join(dir, 'module-list-hook.cjs');
  fs.writeFileSync(
    hook,
    `const fs = require("node:fs");process.on("exit",()=>fs.writeFileSync(${JSON.stringify(list)},process.moduleLoadList.join("\\n")));`,
  );
  return {
    hook,
    builtins: () =>
      fs
        .readFileSync(list, 'utf8')
        .split('\n')
        .filter((m) => m.startsWith('NativeModule ')),
  };
}
