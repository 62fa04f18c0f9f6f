import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptStep } from '../../test/support/scripted-llm-server';

/**
 * An OpenAI-compatible endpoint for bodies too large for the scripted LLM of the tests
 * (test/support/scripted-llm-server.ts decodes each body into one string, and V8 strings
 * stop at 512 MiB). It streams the body, counts its bytes, checks that it is one JSON
 * object naming the model, and answers the next script step as a plain JSON completion.
 * Used for the 1 GB cases only; 127.0.0.1 only.
 */
export interface SinkLlm {
  url: string;
  close(): Promise<void>;
}

export async function startSinkLlm(
  script: (bytes: number, index: number) => ScriptStep,
): Promise<SinkLlm> {
  let index = 0;
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    let bytes = 0;
    let head = '';
    let last = 0;
    req.on('data', (chunk: Buffer) => {
      if (head.length < 16) head += chunk.subarray(0, 16).toString('latin1');
      bytes += chunk.length;
      last = chunk[chunk.length - 1]!;
    });
    req.on('end', () => {
      if (!head.startsWith('{"model":') || last !== 0x7d) {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not a chat request body' } }));
        return;
      }
      const step = script(bytes, index++);
      const calls = (step.tool_calls ?? []).map((c, i) => ({
        id: c.id ?? `call_${index}_${i}`,
        type: 'function',
        function: {
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
        },
      }));
      const body = JSON.stringify({
        id: `chatcmpl-sink-${index}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'sink',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: step.content ?? null,
              ...(calls.length > 0 && { tool_calls: calls }),
            },
            finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        ...(step.usage && {
          usage: {
            prompt_tokens: step.usage.prompt_tokens,
            completion_tokens: step.usage.completion_tokens,
            total_tokens: step.usage.prompt_tokens + step.usage.completion_tokens,
          },
        }),
      });
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
