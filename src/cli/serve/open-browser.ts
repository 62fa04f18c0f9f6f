import { spawn } from 'node:child_process';

/** `--open`: the platform's own opener; failing to open is a notice, never an error. */
export function openBrowser(url: string, onError: (message: string) => void): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', (err) =>
      onError(`could not open a browser (${err.message}); open the URL yourself`),
    );
    child.unref();
  } catch (err) {
    onError(`could not open a browser (${(err as Error).message}); open the URL yourself`);
  }
}
