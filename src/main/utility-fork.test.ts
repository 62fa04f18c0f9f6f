import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { utilityProcessForkWorker } from './utility-fork';

class FakeUtilityProcess extends EventEmitter {
  pid: number | undefined = undefined;
  stderr = new EventEmitter();
  posted: unknown[] = [];
  killed = 0;
  postMessage(message: unknown): void {
    this.posted.push(message);
  }
  kill(): boolean {
    this.killed++;
    return true;
  }
}

describe('utilityProcessForkWorker', () => {
  it('forks the worker entry with the allow-listed environment and holds messages until it has spawned', () => {
    const child = new FakeUtilityProcess();
    const fork = vi.fn(() => child);
    const handle = utilityProcessForkWorker(
      fork as never,
      '/app/out/main/worker.cjs',
    )({
      env: { PATH: '/bin', OPENAI_API_KEY: 'k', NODE_OPTIONS: '--require x' },
    });
    expect(fork).toHaveBeenCalledWith('/app/out/main/worker.cjs', [], {
      env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', PATH: '/bin' },
      execArgv: [
        '--optimize-for-size',
        '--no-sparkplug',
        '--expose-gc',
        '--interrupt-budget=800000',
      ],
      stdio: ['ignore', 'ignore', 'pipe'],
      serviceName: 'Context Workbench task',
    });
    handle.send({ type: 'pause' });
    expect(child.posted).toEqual([]);
    child.pid = 4242;
    child.emit('spawn');
    expect(handle.pid).toBe(4242);
    expect(child.posted).toEqual([{ type: 'pause' }]);
    handle.send({ type: 'stop' });
    expect(child.posted).toEqual([{ type: 'pause' }, { type: 'stop' }]);
  });

  it('relays messages and exits, and kills', () => {
    const child = new FakeUtilityProcess();
    const handle = utilityProcessForkWorker((() => child) as never, '/w.js')({ env: {} });
    const messages: unknown[] = [];
    const exits: unknown[] = [];
    handle.onMessage((m) => messages.push(m));
    handle.onExit((code, signal) => exits.push([code, signal]));
    child.emit('message', { type: 'status', uuid: 'u', status: 'running' });
    child.emit('exit', 3);
    handle.kill('SIGKILL');
    expect(messages).toEqual([{ type: 'status', uuid: 'u', status: 'running' }]);
    expect(exits).toEqual([[3, null]]);
    expect(child.killed).toBe(1);
  });
});
