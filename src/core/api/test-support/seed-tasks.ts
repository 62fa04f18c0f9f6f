import { ContextStore } from '../../store/context-store';
import type { TaskKey } from '../../../shared/task-types';

export interface SeededTask {
  uuid: string;
  title: string;
}

/**
 * A contexts root with finished tasks in it (no task process needed): each has a system
 * prompt, a user prompt, `pairs` tool calls with results (one kept in tool_outputs/),
 * and a final answer, then is completed.
 */
export async function seedTasks(
  root: string,
  specs: {
    title: string;
    pairs?: number;
    key?: Partial<TaskKey>;
    model?: string;
    status?: 'completed' | 'paused' | 'failed';
  }[],
): Promise<SeededTask[]> {
  const store = ContextStore.open(root);
  try {
    const out: SeededTask[] = [];
    for (const spec of specs) {
      const task = store.createTask({
        title: spec.title,
        prompt: `Please work on: ${spec.title}`,
        key: spec.key ?? {},
        llm_provider: 'openai',
        model: spec.model ?? 'gpt-4o',
        context_length: 128_000,
      });
      task.addMessage({ role: 'system', content: 'You are a careful coding agent.' });
      task.addMessage({ role: 'user', content: `Please work on: ${spec.title}` });
      for (let i = 1; i <= (spec.pairs ?? 6); i++) {
        const id = `call_${i}`;
        task.addMessage({
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id,
              type: 'function',
              function: { name: 'read_file', arguments: `{"path":"src/f${i}.ts"}` },
            },
          ],
        });
        const saved =
          i === 1
            ? task.toolOutputs.save(`line 1 of f${i}\nline 2 of f${i}\nline 3\n`, 'read')
            : undefined;
        task.addMessage({
          role: 'tool',
          content: `export const value${i} = ${i}; // contents of src/f${i}.ts `.repeat(30),
          tool_call_id: id,
          tool_name: 'read_file',
          ...(saved && { output_ref: saved.ref }),
        });
        task.recordToolCall({
          tool: 'read_file',
          args: { path: `src/f${i}.ts` },
          result: 'ok',
          status: 'success',
          duration_ms: 3,
          tool_call_id: id,
        });
      }
      task.addMessage({
        role: 'assistant',
        content: `Done with ${spec.title}. The needle is here.`,
      });
      if (spec.status === 'paused') await task.stop();
      else if (spec.status === 'failed') task.fail('stopped by the user');
      else await task.complete();
      task.close();
      out.push({ uuid: task.uuid, title: spec.title });
    }
    return out;
  } finally {
    store.close();
  }
}
