import type { ChildProcess } from 'node:child_process';
import { spawnTs } from './run-ts';

export interface ServeProcess {
  child: ChildProcess;
  /** The printed URL with its token. */
  url: string;
  port: number;
  token: string;
  output(): string;
  /** SIGTERM (handled like Ctrl-C; a shell's background jobs ignore SIGINT), then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `cwb serve` from source in a real process and waits for the URL it prints. */
export function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawnTs('src/cli/index.ts', [...args, 'serve', '--port', '0'], {
    CWB_CONFIG: '',
    // Not this machine's agent sessions: a test that wants sources sets it and its folders.
    CWB_SOURCES_WATCH: '0',
    ...env,
  });
  let out = '';
  let found = false;
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cwb serve printed no URL in time:\n${out}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cwb serve exited with ${code}:\n${out}`));
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /(http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+))/.exec(out);
      if (!match || found) return;
      found = true;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      resolve({
        child,
        url: match[1]!,
        port: Number(match[2]),
        token: match[3]!,
        output: () => out,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          const timeout = setTimeout(() => child.kill('SIGKILL'), 20_000);
          const code = await exited;
          clearTimeout(timeout);
          return code;
        },
      });
    });
  });
}
