// Preloaded into a measured process (`--require`): at exit it writes the process's peak RSS
// to $BENCH_RSS_FILE (see RSS_REPORTER in bench/lib/processes.ts). CommonJS on purpose: an
// ES module preloaded with `--import` would load Node's ES module loader (~2 MiB) into a
// process that otherwise never needs it, and charge it to what is measured.
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS preload (above)
const fs = require('node:fs');

process.on('exit', () => {
  const file = process.env.BENCH_RSS_FILE;
  if (!file) return;
  let bytes = 0;
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match) bytes = Number(match[1]) * 1024;
  } catch {
    // no /proc: fall back to getrusage below
  }
  fs.writeFileSync(file, String(bytes || process.resourceUsage().maxRSS * 1024));
});
