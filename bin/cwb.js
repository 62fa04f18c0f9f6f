#!/usr/bin/env node
// The `cwb` executable: a shim over the bundled CLI (src/cli -> out/main/cli.js).
import { existsSync } from 'node:fs';

const cli = new URL('../out/main/cli.js', import.meta.url);

if (!existsSync(cli)) {
  process.stderr.write('cwb: not built yet; run "npm run build" (or "npm install") first\n');
  process.exit(1);
}

await import(cli.href);
