import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/run-ts';

describe('scripts/rebuild-electron.js', () => {
  it("skips cleanly, touching nothing, when Electron's headers cannot be fetched", async () => {
    // A port just closed on this machine stands for "no network": nothing leaves 127.0.0.1.
    const port = await closedPort();
    const result = spawnSync(
      process.execPath,
      [path.join(REPO_ROOT, 'scripts', 'rebuild-electron.js')],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          ELECTRON_REBUILD_DIST_URL: `http://127.0.0.1:${port}/headers`,
          HOME: '/nonexistent-home',
        },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /^rebuild-electron: skipped: Electron [\d.]+'s headers cannot be fetched: .*ECONNREFUSED/m,
    );
    expect(result.stdout).toMatch(/npm run rebuild:electron/);
    // the system Node's build of better-sqlite3 still loads
    const check = spawnSync(
      process.execPath,
      ['-e', "new (require('better-sqlite3'))(':memory:').close()"],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      },
    );
    expect(check.status, check.stderr).toBe(0);
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
