/**
 * A task process for the DB fault test: resumes a paused task and records statistics in a
 * tight loop (seed 000 §6.2: an LLM call with its usage, a tool call, a message), as the
 * agent loop does after each step, until it is killed. After each call returns it prints a
 * one-letter ack (L, T or M) on stdout (with write(2), see child-io.ts), so the parent
 * knows which updates were committed before the kill. Message and tool-call counts are
 * batched until the step ends (TaskContextManager.flushStats, which the agent loop reaches
 * by reading the row after each step), so this loop ends a step after each of them.
 * Usage: fault-db-writer.ts ROOT UUID
 */
import './fault-hooks';
import { say } from './child-io';
import { ContextStore } from '../../src/core/store/context-store';

const [root, uuid] = process.argv.slice(2);
const store = ContextStore.open(root!);
const task = store.resumeTask(uuid!);
say('ready');
for (let i = 0; ; i++) {
  if (i % 3 === 0) {
    task.recordLlmCall({ input_tokens: 3, output_tokens: 2 });
    say('L');
  } else if (i % 3 === 1) {
    task.recordToolCall({
      tool: 'read_file',
      args: { path: `f${i}.txt` },
      result: 'ok',
      status: 'success',
      duration_ms: 1,
      tool_call_id: `call_${i}`,
    });
    task.flushStats();
    say('T');
  } else {
    task.addMessage({ role: 'tool', content: `result ${i}`, tool_call_id: `call_${i - 1}` });
    task.flushStats();
    say('M');
  }
}
