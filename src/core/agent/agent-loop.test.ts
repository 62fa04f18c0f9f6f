import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { runAgentLoop } from './agent-loop';
import type { ChatClient, ChatResponse, ControlState } from './agent-types';
import { ContextStore } from '../store/context-store';
import { useTempDir } from '../../../test/support/temp-dir';

const tempDir = useTempDir();

/** The collector, without starting the test process with --expose-gc. */
function exposedCollector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

const idle: ControlState = {
  pauseRequested: () => false,
  compactRequested: () => false,
  clearCompactRequest: () => undefined,
  stopSignal: new AbortController().signal,
};

describe('runAgentLoop', () => {
  it("lets a step's reply go before the next model call (a 4,000-call answer is not kept through the next request)", async () => {
    const collect = exposedCollector();
    const store = ContextStore.open(path.join(tempDir(), 'contexts'));
    const task = store.createTask();
    let firstReply: WeakRef<object> | undefined;
    let aliveAtSecondCall: boolean | undefined;
    const client: ChatClient = {
      model: 'm',
      chat: async () => {
        if (!firstReply) {
          const reply: ChatResponse = {
            content: null,
            tool_calls: Array.from({ length: 50 }, (_, i) => ({
              id: `call_${i}`,
              type: 'function' as const,
              function: { name: 'read_file', arguments: `{"path":"f${i}"}` },
            })),
          };
          firstReply = new WeakRef(reply.tool_calls!);
          return reply;
        }
        // A later task than the one the reply was made in: WeakRef keeps its target
        // through the job that created it.
        await new Promise((resolve) => setTimeout(resolve, 0));
        collect();
        aliveAtSecondCall = firstReply.deref() !== undefined;
        return { content: 'done' };
      },
    };
    const outcome = await runAgentLoop({
      task,
      client,
      tools: [],
      runTool: () => Promise.resolve({ content: 'ok', status: 'success' }),
      control: idle,
      maxTurns: 5,
      contextWindow: 100_000,
      emit: () => undefined,
    });
    expect(outcome).toEqual({ kind: 'completed', turns: 2 });
    expect(task.row().tool_call_count).toBe(50);
    expect(aliveAtSecondCall).toBe(false);
    task.close();
    store.close();
  });
});
