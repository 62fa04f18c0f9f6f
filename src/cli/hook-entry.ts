import { hookMain } from './hook-main';

// Entry of `cwb hook …` (bin/cwb.js loads the built copy, out/main/hook.js, for `hook`).
process.exitCode = hookMain(process.argv.slice(3));
