import path from 'node:path';

/**
 * The `cwb` an agent's configuration should call: `$CWB_BIN` when set, else the executable
 * this process was started as (bin/cwb.js, or the `cwb` link a global npm install made),
 * resolved to an absolute path so the agent finds it whatever its PATH and folder.
 */
export function cwbExecutable(
  env: NodeJS.ProcessEnv = process.env,
  argv1: string | undefined = process.argv[1],
): string {
  if (env.CWB_BIN) return path.resolve(env.CWB_BIN);
  if (!argv1) return 'cwb';
  const file = path.resolve(argv1);
  const base = path.basename(file);
  if (base === 'cwb' || base === 'cwb.js' || base === 'cwb.cmd') return file;
  // Started as out/main/cli.js (tests, `node out/main/cli.js`): its shim is bin/cwb.js.
  if (base === 'cli.js') return path.resolve(path.dirname(file), '..', '..', 'bin', 'cwb.js');
  return 'cwb';
}
