/**
 * What a real fixture holds, read straight from the agent's own format — never through our
 * importers — so that test/agents-accounting.test.ts can check that every message, tool call
 * and tool result of it is accounted for. Each reader knows only the agent's record shapes
 * (the same sources the fixtures README names), nothing of how we map them.
 *
 * `messages` are the texts a person or the model wrote (user requests, assistant replies);
 * `calls` and `results` are the agent's tool call ids (null where the agent wrote none: the
 * call is then only counted).
 */
import fs from 'node:fs';
import path from 'node:path';
import { decompress } from 'fzstd';

export interface FixtureCounts {
  messages: string[];
  calls: (string | null)[];
  results: (string | null)[];
}

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function emptyCounts(): FixtureCounts {
  return { messages: [], calls: [], results: [] };
}

function merge(into: FixtureCounts, more: FixtureCounts): FixtureCounts {
  into.messages.push(...more.messages);
  into.calls.push(...more.calls);
  into.results.push(...more.results);
  return into;
}

export function countAll(readers: (() => FixtureCounts)[]): FixtureCounts {
  return readers.reduce((all, read) => merge(all, read()), emptyCounts());
}

const jsonl = (file: string): Json[] =>
  fs
    .readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);
const json = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));

function text(into: FixtureCounts, value: unknown): void {
  const t = str(value);
  if (t !== undefined && t.trim() !== '') into.messages.push(t);
}

/** Anthropic Messages content (Claude Code, Cline, Cursor, Droid, Amp): text, tool_use, tool_result. */
function anthropicContent(into: FixtureCounts, content: unknown): void {
  if (typeof content === 'string') return text(into, content);
  for (const b of list(content)) {
    if (!isObj(b)) continue;
    if (b.type === 'text') text(into, b.text);
    else if (b.type === 'tool_use') into.calls.push(str(b.id) ?? null);
    else if (b.type === 'tool_result')
      into.results.push(str(b.tool_use_id) ?? str(b.toolUseID) ?? null);
  }
}

/** Claude Code session JSONL: user / assistant entries holding an Anthropic message. */
export function claudeCode(file: string): FixtureCounts {
  const c = emptyCounts();
  for (const e of jsonl(file))
    if ((e.type === 'user' || e.type === 'assistant') && isObj(e.message))
      anthropicContent(c, e.message.content);
  return c;
}

/** Codex rollout: response_item messages, function / custom / local shell calls and outputs. */
export function codex(file: string): FixtureCounts {
  const c = emptyCounts();
  for (const e of jsonl(file)) {
    const p = e.payload;
    if (e.type !== 'response_item' || !isObj(p)) continue;
    if (p.type === 'message' && (p.role === 'user' || p.role === 'assistant'))
      for (const b of list(p.content)) if (isObj(b)) text(c, b.text);
    if (
      p.type === 'function_call' ||
      p.type === 'custom_tool_call' ||
      p.type === 'local_shell_call'
    )
      c.calls.push(str(p.call_id) ?? null);
    // A search the provider ran: a call without an id whose output the rollout does not keep.
    if (p.type === 'web_search_call') c.calls.push(null);
    if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output')
      c.results.push(str(p.call_id) ?? null);
  }
  return c;
}

/** Gemini CLI chat messages (the JSON document's list, or the JSONL log's records). */
function geminiMessages(c: FixtureCounts, messages: Json[]): void {
  for (const m of messages) {
    if (m.type !== 'user' && m.type !== 'gemini') continue;
    if (typeof m.content === 'string') text(c, m.content);
    else for (const p of list(m.content)) if (isObj(p)) text(c, p.text);
    for (const call of list(m.toolCalls)) {
      if (!isObj(call)) continue;
      c.calls.push(str(call.id) ?? null);
      // A call is answered once it has a result or a final status (a cancelled one too).
      if (
        call.result !== undefined ||
        ['success', 'error', 'cancelled'].includes(String(call.status))
      )
        c.results.push(str(call.id) ?? null);
    }
  }
}

export function geminiJson(file: string): FixtureCounts {
  const c = emptyCounts();
  geminiMessages(c, list((json(file) as Json).messages).filter(isObj));
  return c;
}

/** Gemini CLI JSONL log: every message id ever recorded, in its last version. */
export function geminiJsonl(file: string): FixtureCounts {
  const byId = new Map<string, Json>();
  for (const r of jsonl(file))
    if (typeof r.id === 'string' && typeof r.type === 'string') byId.set(r.id, r);
  const c = emptyCounts();
  geminiMessages(c, [...byId.values()]);
  return c;
}

/**
 * A Cline / Roo Code task folder: `api_conversation_history.json`, and the subagents of its
 * `use_subagents` calls as `ui_messages.json` shows them (`say: "subagent"` rows, each run
 * updated in place under one `ts`: the prompt each was given and what it answered).
 */
export function cline(task: string): FixtureCounts {
  const c = emptyCounts();
  for (const m of list(json(path.join(task, 'api_conversation_history.json'))))
    if (isObj(m)) anthropicContent(c, m.content);
  const ui = path.join(task, 'ui_messages.json');
  const runs = new Map<unknown, unknown[]>();
  for (const row of fs.existsSync(ui) ? list(json(ui)) : [])
    if (isObj(row) && row.say === 'subagent')
      runs.set(row.ts, list((JSON.parse(String(row.text)) as Json).items));
  for (const item of [...runs.values()].flat())
    if (isObj(item)) {
      text(c, item.prompt);
      text(c, item.result ?? item.error);
    }
  return c;
}

/**
 * Cline SDK `<id>.messages.json`: its messages (Anthropic content, plus `file` blocks: an
 * attached file's text) and its system prompt.
 */
export function clineSdk(file: string): FixtureCounts {
  const c = emptyCounts();
  const doc = json(file);
  if (!isObj(doc)) return c;
  text(c, doc.system_prompt);
  for (const m of list(doc.messages)) {
    if (!isObj(m)) continue;
    anthropicContent(c, m.content);
    for (const b of list(m.content)) if (isObj(b) && b.type === 'file') text(c, b.content);
  }
  return c;
}

/**
 * OpenHands trajectory (a list of events) or a session's events folder: user / agent
 * messages and the agent's own words (finish, think); the agent's other actions are tool
 * calls (the function-calling id in `tool_call_metadata` when it has one), answered by the
 * observations whose `cause` is the action.
 */
export function openhands(fileOrEvents: string): FixtureCounts {
  const events: Json[] = fs.statSync(fileOrEvents).isDirectory()
    ? fs.readdirSync(fileOrEvents).map((n) => json(path.join(fileOrEvents, n)) as Json)
    : list(json(fileOrEvents)).filter(isObj);
  const c = emptyCounts();
  const calls = new Map<unknown, string | null>();
  for (const e of events) {
    const args = isObj(e.args) ? e.args : {};
    const meta = isObj(e.tool_call_metadata) ? e.tool_call_metadata : {};
    if (e.action === 'message' || e.action === 'finish' || e.action === 'think')
      text(c, args.content ?? args.thought ?? args.final_thought ?? e.message);
    else if (
      typeof e.action === 'string' &&
      e.source === 'agent' &&
      !['system', 'change_agent_state', 'recall'].includes(e.action)
    ) {
      calls.set(e.id, str(meta.tool_call_id) ?? null);
      c.calls.push(str(meta.tool_call_id) ?? null);
    }
  }
  for (const e of events)
    if (typeof e.observation === 'string' && calls.has(e.cause))
      c.results.push(calls.get(e.cause)!);
  return c;
}

/**
 * SWE-agent `.traj`: the history the model saw (function-calling `tool_calls`, answered by
 * tool entries' `tool_call_ids`); without them, each trajectory step is an action and its
 * observation (the same executions, so never both).
 */
export function sweAgent(file: string): FixtureCounts {
  const doc = json(file) as Json;
  const c = emptyCounts();
  for (const h of list(doc.history)) {
    if (!isObj(h)) continue;
    if (h.role === 'user' || h.role === 'assistant') {
      if (typeof h.content === 'string') text(c, h.content);
      else for (const p of list(h.content)) if (isObj(p)) text(c, p.text);
    }
    for (const t of list(h.tool_calls)) if (isObj(t)) c.calls.push(str(t.id) ?? null);
    if (h.role === 'tool') for (const id of list(h.tool_call_ids)) c.results.push(str(id) ?? null);
  }
  if (c.calls.length > 0) return c;
  for (const step of list(doc.trajectory)) {
    if (!isObj(step)) continue;
    c.calls.push(null);
    if (step.observation !== undefined) c.results.push(null);
  }
  return c;
}

/** Aider's markdown history: `#### ` lines are the user's requests (no tool calls). */
export function aider(file: string): FixtureCounts {
  const c = emptyCounts();
  let request: string[] = [];
  const flush = (): void => {
    if (request.length > 0) text(c, request.join('\n'));
    request = [];
  };
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('#### ')) request.push(line.slice(5));
    else flush();
  }
  flush();
  return c;
}

/** Pi / OpenClaw session JSONL: message entries (user, assistant with toolCall blocks, toolResult). */
export function pi(file: string): FixtureCounts {
  const c = emptyCounts();
  for (const e of jsonl(file)) {
    const m = e.message;
    if (e.type !== 'message' || !isObj(m)) continue;
    if (m.role === 'toolResult') c.results.push(str(m.toolCallId) ?? null);
    else if (m.role === 'user' || m.role === 'assistant')
      for (const b of typeof m.content === 'string'
        ? [{ type: 'text', text: m.content }]
        : list(m.content)) {
        if (!isObj(b)) continue;
        if (b.type === 'text') text(c, b.text);
        if (b.type === 'toolCall') c.calls.push(str(b.id) ?? null);
      }
  }
  return c;
}

/** opencode's JSON storage (Kilo's database holds the same records): text and tool parts. */
export function opencodeStorage(storage: string): FixtureCounts {
  const c = emptyCounts();
  const parts = path.join(storage, 'part');
  for (const message of fs.readdirSync(parts).sort())
    for (const name of fs.readdirSync(path.join(parts, message)).sort()) {
      const p = json(path.join(parts, message, name)) as Json;
      if (p.type === 'text' && p.synthetic !== true) text(c, p.text);
      if (p.type !== 'tool') continue;
      c.calls.push(str(p.callID) ?? null);
      const state = isObj(p.state) ? p.state : {};
      if (state.status === 'completed' || state.status === 'error')
        c.results.push(str(p.callID) ?? null);
    }
  return c;
}

/** GitHub Copilot CLI events.jsonl. */
export function copilotCli(file: string): FixtureCounts {
  const c = emptyCounts();
  for (const e of jsonl(file)) {
    const d = isObj(e.data) ? e.data : {};
    if (e.type === 'user.message' || e.type === 'assistant.message') text(c, d.content);
    if (e.type === 'assistant.message')
      for (const r of list(d.toolRequests)) if (isObj(r)) c.calls.push(str(r.toolCallId) ?? null);
    if (e.type === 'tool.execution_complete') c.results.push(str(d.toolCallId) ?? null);
  }
  return c;
}

/** The ids and texts of a Copilot CLI sub-agent's own events (`parentToolCallId` on their data). */
export function copilotSubagentItems(file: string): Set<string> {
  const items = new Set<string>();
  for (const e of jsonl(file)) {
    const d = isObj(e.data) ? e.data : {};
    if (typeof d.parentToolCallId !== 'string' && typeof e.agentId !== 'string') continue;
    for (const r of list(d.toolRequests))
      if (isObj(r) && typeof r.toolCallId === 'string') items.add(r.toolCallId);
    if (typeof d.toolCallId === 'string') items.add(d.toolCallId);
    if (typeof d.content === 'string') items.add(d.content);
  }
  return items;
}

/** Cursor agent transcript: `{role, message: {content}}` lines of Anthropic blocks. */
export function cursor(file: string): FixtureCounts {
  const c = emptyCounts();
  for (const e of jsonl(file)) if (isObj(e.message)) anthropicContent(c, e.message.content);
  return c;
}

/** Qwen Code chat records: user / assistant Gemini parts, tool_result functionResponse parts. */
export function qwenCode(file: string): FixtureCounts {
  const c = emptyCounts();
  for (const r of jsonl(file)) {
    const parts = isObj(r.message) ? list(r.message.parts).filter(isObj) : [];
    for (const p of parts) {
      if ((r.type === 'user' || r.type === 'assistant') && p.thought !== true) text(c, p.text);
      if (r.type === 'assistant' && isObj(p.functionCall))
        c.calls.push(str(p.functionCall.id) ?? null);
      if (r.type === 'tool_result' && isObj(p.functionResponse))
        c.results.push(str(p.functionResponse.id) ?? null);
    }
  }
  return c;
}

/** Factory Droid session JSONL: `message` entries holding an Anthropic message. */
export function droid(file: string): FixtureCounts {
  const c = emptyCounts();
  for (const e of jsonl(file))
    if (e.type === 'message' && isObj(e.message)) anthropicContent(c, e.message.content);
  return c;
}

/** Amp thread: user / assistant messages of Anthropic-like blocks (`toolUseID` on results). */
export function amp(file: string): FixtureCounts {
  const c = emptyCounts();
  for (const m of list((json(file) as Json).messages))
    if (isObj(m) && (m.role === 'user' || m.role === 'assistant')) anthropicContent(c, m.content);
  return c;
}

/** Continue session: OpenAI-like chat history (`toolCalls`, role tool with `toolCallId`). */
export function continueSession(file: string): FixtureCounts {
  const c = emptyCounts();
  for (const h of list((json(file) as Json).history)) {
    const m = isObj(h) && isObj(h.message) ? h.message : undefined;
    if (!m) continue;
    if (m.role === 'user' || m.role === 'assistant') {
      if (typeof m.content === 'string') text(c, m.content);
      else for (const p of list(m.content)) if (isObj(p)) text(c, p.text);
      for (const t of list(m.toolCalls)) if (isObj(t)) c.calls.push(str(t.id) ?? null);
    }
    if (m.role === 'tool') c.results.push(str(m.toolCallId) ?? null);
  }
  return c;
}

/** Zed thread (the JSON inside threads.db): User / Agent messages, ToolUse and tool_results. */
export function zedThread(file: string): FixtureCounts {
  const raw = fs.readFileSync(file);
  const doc = JSON.parse(
    Buffer.from(file.endsWith('.zst') ? decompress(raw) : raw).toString('utf8'),
  ) as Json;
  const c = emptyCounts();
  for (const m of list(doc.messages)) {
    if (!isObj(m)) continue;
    const body = isObj(m.User) ? m.User : isObj(m.Agent) ? m.Agent : undefined;
    if (!body) continue;
    for (const b of list(body.content)) {
      if (!isObj(b)) continue;
      text(c, b.Text);
      if (isObj(b.ToolUse)) c.calls.push(str(b.ToolUse.id) ?? null);
    }
    if (isObj(body.tool_results))
      for (const id of Object.keys(body.tool_results)) c.results.push(id);
  }
  return c;
}

/** Goose sessions (the rows of sessions.db): text, toolRequest and toolResponse contents. */
export function goose(rows: { messages: Json[] }): FixtureCounts {
  const c = emptyCounts();
  for (const m of rows.messages)
    for (const b of list(JSON.parse(String(m.content_json)))) {
      if (!isObj(b)) continue;
      if (b.type === 'text') text(c, b.text);
      if (b.type === 'toolRequest') c.calls.push(str(b.id) ?? null);
      if (b.type === 'toolResponse') c.results.push(str(b.id) ?? null);
    }
  return c;
}

/** Goose's older JSON Lines session: a metadata line, then a message (`content` list) a line. */
export function gooseJsonl(file: string): FixtureCounts {
  return goose({
    messages: jsonl(file)
      .filter((line) => Array.isArray(line.content))
      .map((line) => ({ content_json: JSON.stringify(line.content) })),
  });
}

/** Crush messages (the rows of crush.db): parts text, tool_call, tool_result. */
export function crush(rows: { messages: Json[] }): FixtureCounts {
  const c = emptyCounts();
  for (const m of rows.messages) {
    const bytes = Buffer.isBuffer(m.parts) ? Buffer.from(decompress(m.parts)) : m.parts;
    for (const p of list(JSON.parse(String(bytes)))) {
      if (!isObj(p) || !isObj(p.data)) continue;
      if (p.type === 'text') text(c, p.data.text);
      if (p.type === 'tool_call') c.calls.push(str(p.data.id) ?? null);
      if (p.type === 'tool_result') c.results.push(str(p.data.tool_call_id) ?? null);
    }
  }
  return c;
}
