import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ContextStore } from '../../src/core/store/context-store';
import type { CurrentMessage } from '../../src/shared/task-types';

/** A contexts root, a work folder with a file in it, and a config.yaml pointing at a scripted LLM. */
export function makeTaskEnv(
  base: string,
  llm: { provider: 'openai' | 'ollama'; url: string; model?: string; extraYaml?: string },
): {
  root: string;
  workdir: string;
  configFile: string;
} {
  const root = path.join(base, 'contexts');
  const workdir = path.join(base, 'work');
  fs.mkdirSync(workdir, { recursive: true });
  fs.writeFileSync(path.join(workdir, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  const configFile = path.join(base, 'config.yaml');
  const model = llm.model ?? 'gpt-4o';
  const section =
    llm.provider === 'openai'
      ? `  openai:\n    model: ${model}\n    base_url: ${llm.url}\n    api_key: \${OPENAI_API_KEY}\n`
      : `  ollama:\n    model: ${model}\n    context_length: 32768\n    base_url: ${llm.url}\n`;
  fs.writeFileSync(
    configFile,
    `llm:\n  provider: ${llm.provider}\n${section}${llm.extraYaml ?? ''}`,
  );
  return { root, workdir, configFile };
}

/**
 * A task whose process died without a word in `root`: its row still says running, owned by
 * a process of this host that no longer exists. Recovery marks it interrupted. Returns its uuid.
 */
export function deadRunningTask(root: string): string {
  const store = ContextStore.open(root);
  try {
    const task = store.createTask({ title: 'died while running' });
    task.close();
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    store.repo.setStatus(task.uuid, 'running', { process_id: gone, hostname: os.hostname() });
    return task.uuid;
  } finally {
    store.close();
  }
}

/** current.jsonl of a task, wherever its folder is now. */
export function readCurrent(root: string, uuid: string): CurrentMessage[] {
  for (const folder of ['running', 'paused', 'completed']) {
    const file = path.join(root, folder, uuid, 'current.jsonl');
    if (fs.existsSync(file)) {
      return fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as CurrentMessage);
    }
  }
  return [];
}

/** Every file under a folder, recursively. */
export function allFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? allFiles(p) : [p];
  });
}
