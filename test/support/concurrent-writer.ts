/**
 * A child process for the concurrency test: opens the shared contexts root, creates tasks
 * and records many statistics updates, as a task worker would.
 * Usage: concurrent-writer.ts ROOT WORKER_ID TASKS UPDATES
 */
import { ContextStore } from '../../src/core/store/context-store';

const [root, workerId, taskCount, updates] = process.argv.slice(2);
const store = ContextStore.open(root!);
for (let t = 0; t < Number(taskCount); t++) {
  const task = store.createTask({
    title: `worker ${workerId} task ${t}`,
    key: { user: `w${workerId}` },
  });
  for (let u = 0; u < Number(updates); u++) {
    task.addMessage({ role: u % 2 ? 'assistant' : 'user', content: `w${workerId} t${t} u${u}` });
    task.recordLlmCall({ input_tokens: 3, output_tokens: 2 });
    task.recordToolCall({
      tool: 'noop',
      args: {},
      result: 'ok',
      status: 'success',
      duration_ms: 0,
    });
  }
  await task.complete();
}
store.close();
