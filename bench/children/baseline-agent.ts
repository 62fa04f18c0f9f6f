/**
 * The in-memory baseline of the memory benchmark: the agent loop most agents run. Every
 * message is kept in an array and each request body is built from it with JSON.stringify.
 * It does the same work as the task process on the same script: the same calls to the same
 * scripted LLM, the same read_file results. It runs as plain JavaScript (the runner
 * transpiles it; no tsx loader), imports only Node built-ins, and holds nothing it does not
 * need: no logging, no copies of old request bodies.
 *
 * BODY_MODE `whole`: one JSON.stringify of the whole body per request (what the OpenAI SDK
 * and most agents do). `pieces`: one JSON.stringify per message, written as the socket
 * drains, so a request costs one message of memory on top of the array — the leanest an
 * in-memory agent can be, and the only way past V8's 512 MiB string limit. `jsonl`: `pieces`
 * plus what Codex CLI (its rollout file) and Claude Code (its session transcript) do to
 * keep a conversation: every item appended once to one JSON Lines file as it arrives, and
 * token counts taken from the API's usage, never counted locally.
 *
 * Usage: node baseline-agent.mjs BASE_URL WORKDIR MODEL MAX_TURNS BODY_MODE [JSONL_FILE]
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

interface ToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}
interface Message {
  role: string;
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

const [baseUrl, workdir, model, maxTurns, mode, jsonlFile] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string | undefined,
];
/** `jsonl` mode: the transcript, opened for appending like a rollout file. */
const transcript = mode === 'jsonl' ? fs.openSync(jsonlFile!, 'a') : -1;
/** `jsonl` mode: the context size as the API last reported it. */
let promptTokens = 0;

/** One item of the conversation: kept in the array, and in `jsonl` mode appended once. */
function remember(message: Message): void {
  messages.push(message);
  if (transcript >= 0) fs.writeSync(transcript, `${JSON.stringify(message)}\n`);
}
const READ_LINES = 2000;
// read_file's budget: 50 KiB of output less room for its closing note.
const READ_BUDGET = 50 * 1024 - 1024;
const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a text file in the working directory.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];
const messages: Message[] = [
  { role: 'system', content: 'You are a coding agent. Use the tools to read files.' },
  { role: 'user', content: process.env.BENCH_PROMPT ?? 'Read every file.' },
];

/** read_file as the task process shows it: numbered lines up to 2000 lines or ~49 KiB. */
function readFile(relative: string): string {
  const text = fs.readFileSync(path.join(workdir, relative), 'utf8');
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const shown: string[] = [];
  let bytes = 0;
  for (let i = 0; i < lines.length && shown.length < READ_LINES; i++) {
    const line = `${String(i + 1).padStart(6)}\t${lines[i]}`;
    const size = Buffer.byteLength(line) + 1;
    if (shown.length > 0 && bytes + size > READ_BUDGET) break;
    shown.push(line);
    bytes += size;
  }
  if (shown.length < lines.length) {
    shown.push(`[lines 1-${shown.length} shown; continue with offset=${shown.length + 1}]`);
  }
  return shown.join('\n');
}

function write(req: http.ClientRequest, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (req.write(text)) resolve();
    else req.once('drain', () => resolve());
  });
}

async function chat(): Promise<Message> {
  const req = http.request(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    // A fresh connection per call: between two calls this agent reads files synchronously
    // for many seconds, the server closes the idle keep-alive socket meanwhile (after 5 s),
    // and a blocked event loop never sees it, so the next call wrote into a closed socket
    // (EPIPE).
    agent: false,
  });
  const answer = new Promise<string>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        if (res.statusCode === 200) resolve(text);
        else reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
      });
    });
  });
  if (mode === 'whole') {
    req.end(JSON.stringify({ model, messages, tools: TOOLS, stream: false }));
  } else {
    await write(req, `{"model":${JSON.stringify(model)},"messages":[`);
    for (let i = 0; i < messages.length; i++) {
      await write(req, `${i > 0 ? ',' : ''}${JSON.stringify(messages[i])}`);
    }
    req.end(`],"tools":${JSON.stringify(TOOLS)},"stream":false}`);
  }
  const body = JSON.parse(await answer) as {
    choices: { message: Message }[];
    usage?: { prompt_tokens?: number };
  };
  promptTokens = body.usage?.prompt_tokens ?? promptTokens;
  return body.choices[0]!.message;
}

if (transcript >= 0) for (const m of messages) fs.writeSync(transcript, `${JSON.stringify(m)}\n`);
for (let turn = 0; turn < Number(maxTurns); turn++) {
  const reply = await chat();
  const calls = reply.tool_calls ?? [];
  remember({
    role: 'assistant',
    content: reply.content,
    ...(calls.length > 0 && { tool_calls: calls }),
  });
  if (calls.length === 0) break;
  for (const call of calls) {
    const args = JSON.parse(call.function.arguments) as { path: string };
    remember({
      role: 'tool',
      tool_call_id: call.id,
      name: call.function.name,
      content: readFile(args.path),
    });
  }
}
if (transcript >= 0) fs.closeSync(transcript);
process.stdout.write(`${JSON.stringify({ messages: messages.length, promptTokens })}\n`);
