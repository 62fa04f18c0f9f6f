#!/usr/bin/env node
// The `cwb` executable: a shim over the bundled CLI (src/cli -> out/main/cli.js). `cwb hook`
// runs inside coding agents after every compaction and must start fast: it loads its own
// small entry (out/main/hook.js) instead of the whole CLI.
import { existsSync } from 'node:fs';

const entry = process.argv[2] === 'hook' ? 'hook' : 'cli';
const cli = new URL(`../out/main/${entry}.js`, import.meta.url);

if (!existsSync(cli)) {
  if (entry === 'hook') process.exit(0); // a hook never disturbs the agent
  process.stderr.write('cwb: not built yet; run "npm run build" (or "npm install") first\n');
  process.exit(1);
}

await import(cli.href);
