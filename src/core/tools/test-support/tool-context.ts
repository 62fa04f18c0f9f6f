import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { MessageStore } from '../../store/message-store';
import { PlanningStore } from '../../store/planning-store';
import { ToolOutputStore } from '../../store/tool-output-store';
import { executeTool } from '../tool-registry';
import type { ToolContext, ToolResult } from '../tool-types';

export interface ToolFixture {
  /** Holds `work/` (the working directory), `task/` (the task's context) and `outside/`. */
  base: string;
  workdir: string;
  outside: string;
  taskDir: string;
  ctx: ToolContext;
  /** Calls a tool through the registry, arguments given as an object. */
  call(name: string, args: unknown, overrides?: Partial<ToolContext>): Promise<ToolResult>;
  /** Writes a file under the working directory, creating folders. */
  write(relative: string, content: string | Buffer): string;
}

/** A fresh working directory and task folder per test, removed after it. */
export function useToolFixture(): () => ToolFixture {
  let fixture: ToolFixture | undefined;
  afterEach(() => {
    if (!fixture) return;
    fixture.ctx.planning.close();
    fixture.ctx.messages.close();
    fs.rmSync(fixture.base, { recursive: true, force: true });
    fixture = undefined;
  });
  return () => {
    fixture ??= createFixture();
    return fixture;
  };
}

function createFixture(): ToolFixture {
  // realpath: on macOS the temp folder is behind a symlink; tests compare real paths.
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cwb-tools-')));
  const workdir = path.join(base, 'work');
  const outside = path.join(base, 'outside');
  const taskDir = path.join(base, 'task');
  for (const dir of [workdir, outside, taskDir]) fs.mkdirSync(dir);
  const ctx: ToolContext = {
    workdir,
    toolOutputs: new ToolOutputStore(taskDir),
    planning: new PlanningStore(taskDir),
    messages: MessageStore.open(taskDir),
    allowRunCommand: true,
  };
  return {
    base,
    workdir,
    outside,
    taskDir,
    ctx,
    call: (name, args, overrides = {}) =>
      executeTool(name, typeof args === 'string' ? args : JSON.stringify(args), {
        ...ctx,
        ...overrides,
      }),
    write(relative, content) {
      const file = path.join(workdir, relative);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
      return file;
    },
  };
}
