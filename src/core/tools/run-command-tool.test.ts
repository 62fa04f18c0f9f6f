import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_INLINE_BYTES } from './output-limits';
import { useToolFixture } from './test-support/tool-context';

const posix = process.platform !== 'win32';

/** Alive and not a zombie (a container's init may not reap reparented children at once). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (_err) {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch (_err) {
    return !fs.existsSync('/proc');
  }
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

describe.skipIf(!posix)('run_command', () => {
  const fixture = useToolFixture();

  it('runs in the working directory and ends with the exit code', async () => {
    const { call, workdir } = fixture();
    const result = await call('run_command', { command: 'pwd; echo done' });
    expect(result).toEqual({ status: 'success', content: `${workdir}\ndone\nexit code 0` });
  });

  it('captures stdout and stderr interleaved in the order written', async () => {
    const { call } = fixture();
    const result = await call('run_command', {
      command: 'echo out1; echo err1 >&2; echo out2; echo err2 >&2',
    });
    expect(result.content).toBe('out1\nerr1\nout2\nerr2\nexit code 0');
  });

  it('reports non-zero exit codes as errors, with the output', async () => {
    const { call } = fixture();
    const result = await call('run_command', { command: 'echo failing; exit 3' });
    expect(result).toEqual({
      status: 'error',
      error: 'exit code 3',
      content: 'failing\nexit code 3',
    });
    expect((await call('run_command', { command: 'true' })).content).toBe(
      '(no output)\nexit code 0',
    );
    expect((await call('run_command', { command: 'kill -9 $$' })).content).toBe(
      '(no output)\nkilled by signal SIGKILL',
    );
  });

  it('gives the command an empty stdin', async () => {
    const { call } = fixture();
    expect((await call('run_command', { command: 'cat; echo after' })).content).toBe(
      'after\nexit code 0',
    );
  });

  it('kills the whole process group on timeout, within the timeout', async () => {
    const { call, workdir } = fixture();
    const started = Date.now();
    const result = await call('run_command', {
      command: 'sleep 30 & echo $! > child.pid; echo started; sleep 30',
      timeout_ms: 500,
    });
    const elapsed = Date.now() - started;
    expect(result.status).toBe('error');
    expect(result.content).toBe('started\nkilled by timeout after 500 ms');
    expect(result.error).toBe('killed by timeout after 500 ms');
    expect(elapsed).toBeLessThan(15_000); // the command sleeps 30 s
    const childPid = Number(fs.readFileSync(path.join(workdir, 'child.pid'), 'utf8'));
    expect(childPid).toBeGreaterThan(0);
    expect(await waitUntil(() => !isRunning(childPid), 2000)).toBe(true);
  });

  it('kills children that ignore SIGTERM', async () => {
    const { call, workdir } = fixture();
    // "ready" in the output proves the stubborn child wrote its pid before the timeout.
    const result = await call('run_command', {
      command: [
        'sh -c \'trap "" TERM; echo $$ > stubborn.pid; sleep 30\' &',
        'while [ ! -s stubborn.pid ]; do sleep 0.05; done; echo ready; sleep 30',
      ].join('\n'),
      timeout_ms: 1000,
    });
    expect(result.content).toBe('ready\nkilled by timeout after 1000 ms');
    const pid = Number(fs.readFileSync(path.join(workdir, 'stubborn.pid'), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntil(() => !isRunning(pid), 4000)).toBe(true);
  });

  it('uses the context default timeout and honours an abort signal', async () => {
    const { call } = fixture();
    const byDefault = await call('run_command', { command: 'sleep 30' }, { defaultTimeoutMs: 200 });
    expect(byDefault.content).toBe('(no output)\nkilled by timeout after 200 ms');

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const aborted = await call(
      'run_command',
      { command: 'sleep 30' },
      { signal: controller.signal },
    );
    expect(Date.now() - started).toBeLessThan(15_000); // the command sleeps 30 s
    expect(aborted).toMatchObject({
      status: 'error',
      content: '(no output)\nkilled: the task was cancelled',
    });

    const already = await call(
      'run_command',
      { command: 'echo no' },
      { signal: controller.signal },
    );
    expect(already.error).toMatch(/cancelled before it started/);
  });

  it('is refused when disabled by config, and not offered', async () => {
    const { call, workdir } = fixture();
    const result = await call(
      'run_command',
      { command: 'touch ran.txt' },
      { allowRunCommand: false },
    );
    expect(result.status).toBe('error');
    expect(result.error).toMatch(/disabled by the configuration \(tools\.run_command is false\)/);
    expect(fs.existsSync(path.join(workdir, 'ran.txt'))).toBe(false);
  });

  it('gives the command only allow-listed variables: no key, token or unlisted variable', async () => {
    const { call } = fixture();
    const saved = { ...process.env };
    Object.assign(process.env, {
      OPENAI_API_KEY: 'sk-openai',
      ANTHROPIC_API_KEY: 'sk-ant',
      GITHUB_TOKEN: 'ghp-x',
      CLIENT_SECRET: 'shh',
      my_lower_api_key: 'lower',
      LLM_KEY_UNUSUAL_NAME: 'sk-config-secret',
      CWB_UNLISTED: 'unlisted',
      LC_CWB_TEST: 'C.UTF-8',
    });
    try {
      const result = await call('run_command', { command: 'env' });
      expect(result.content).toContain('PATH=');
      expect(result.content).toContain('LC_CWB_TEST=C.UTF-8');
      for (const hidden of [
        'sk-openai',
        'sk-ant',
        'ghp-x',
        'shh',
        'lower',
        'sk-config',
        'unlisted',
      ]) {
        expect(result.content).not.toContain(hidden);
      }
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    }
  });

  it("uses the task's child environment when given one (allow-list plus tools.env_passthrough)", async () => {
    const { call } = fixture();
    const result = await call(
      'run_command',
      { command: 'env' },
      { childEnv: { PATH: process.env.PATH, CWB_PASSED: 'passed' } },
    );
    expect(result.content).toContain('CWB_PASSED=passed');
  });

  it('keeps big output in the tool output cache, readable with tool_output_cache and its grep', async () => {
    const { call } = fixture();
    const result = await call('run_command', {
      command:
        'i=1; while [ $i -le 20000 ]; do echo "row $i"; i=$((i+1)); done; echo "the end" >&2',
    });
    expect(result.status).toBe('success');
    expect(Buffer.byteLength(result.content)).toBeLessThan(MAX_INLINE_BYTES);
    expect(result.outputRef).toMatch(/^run_command_[0-9a-f]{12}$/);
    const ref = result.outputRef as string;
    expect(result.content.startsWith('row 1\nrow 2\n')).toBe(true);
    expect(result.content).toMatch(/\[… \d+ bytes omitted \(\d+ bytes in all\) …\]/);
    expect(result.content).toContain(`[full output: ref=${ref}; read it with tool_output_cache]`);
    expect(
      result.content.endsWith(
        'row 20000\nthe end\n' +
          `[full output: ref=${ref}; read it with tool_output_cache]\nexit code 0`,
      ),
    ).toBe(true);

    const middle = await call('tool_output_cache', { ref_id: ref, offset: 10000, limit: 3 });
    expect(middle.content).toBe(
      ` 10000\trow 10000\n 10001\trow 10001\n 10002\trow 10002\n[lines 10000-10002 of output ${ref} shown; more follow; continue with offset=10003]`,
    );
    const found = await call('tool_output_cache_grep', { ref_id: ref, pattern: '^row 1234\\d$' });
    expect(found.content.split('\n')).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `${12340 + i}: row ${12340 + i}`),
      '[10 matches]',
    ]);
  });

  it('stops a command whose output passes 32 MiB, keeping what it printed in the cache', async () => {
    const { call, ctx } = fixture();
    const started = Date.now();
    const result = await call('run_command', { command: 'yes' });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.status).toBe('error');
    expect(result.content.endsWith('\nkilled: output exceeded 32 MiB')).toBe(true);
    expect(result.content.startsWith('y\ny\n')).toBe(true);
    const ref = result.outputRef as string;
    expect(ctx.toolOutputs.exists(ref)).toBe(true);
    expect(
      (await call('tool_output_cache', { ref_id: ref, offset: 1_000_000, limit: 1 })).content,
    ).toMatch(/^1000000\ty\n/);
  });

  it('validates timeout_ms', async () => {
    const { call } = fixture();
    expect((await call('run_command', { command: 'true', timeout_ms: 600_001 })).error).toBe(
      'invalid arguments for run_command: "timeout_ms" must be at most 600000',
    );
    expect((await call('run_command', { command: '' })).error).toBe(
      'invalid arguments for run_command: "command" must not be empty',
    );
  });
});
