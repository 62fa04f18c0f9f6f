import type { MessageRecord, ToolCall } from '../../shared/task-types';
import { shortenLine } from './output-limits';

/** Names in a header are cut to this: they come from the file, which may be damaged. */
const NAME_CHARS = 100;

/**
 * How history_recall names a message: "#12 tool (run_command)", plus a tag when the message
 * is not something that was said at the time (a compaction's summary or marker), so the
 * model does not take a summary for the original.
 */
export function messageHeader(seq: number, message: MessageRecord): string {
  const tool = message.tool_name === undefined ? '' : ` (${shortName(message.tool_name)})`;
  const tags = messageTags(message);
  return `#${seq} ${message.role}${tool}${tags.length > 0 ? ` [${tags.join('; ')}]` : ''}`;
}

function messageTags(message: MessageRecord): string[] {
  const tags: string[] = [];
  const what = kindLabel(message);
  if (message.compaction_id !== undefined) {
    // A damaged id reads as -1 (message-shape.ts): still a compaction's, just not which one.
    const by = message.compaction_id >= 0 ? ` ${message.compaction_id}` : '';
    tags.push(`${what ?? 'message'} written by compaction${by}, not an original message`);
  } else if (what !== undefined) {
    tags.push(`${what}, not an original message`);
  }
  if (message.kind === 'inheritance') tags.push('carried over from an earlier task');
  if (message.name !== undefined) tags.push(`name: ${shortName(message.name)}`);
  return tags;
}

function shortName(name: string): string {
  return shortenLine(name, NAME_CHARS).replace(/\s+/g, ' ');
}

function kindLabel(message: MessageRecord): string | undefined {
  switch (message.kind) {
    case 'summary':
      return 'summary';
    case 'truncation-marker':
      return 'truncation marker';
    default:
      return undefined;
  }
}

/** A tool call as one compact line: name(arguments), the arguments as the model wrote them. */
export function callText(call: ToolCall): string {
  return `${call.function.name}(${call.function.arguments})`;
}

/** A piece of a message that search looks at: its content, or one of its tool calls. */
export interface SearchablePart {
  /** "line" for the content (hits show their line number), "call" for a tool call. */
  kind: 'line' | 'call';
  text: string;
}

/** The content and tool calls of `message`, leaving out calls of the tool named `skipTool`. */
export function searchableParts(message: MessageRecord, skipTool: string): SearchablePart[] {
  const parts: SearchablePart[] = [];
  if (message.content !== null && message.content !== '') {
    parts.push({ kind: 'line', text: message.content });
  }
  for (const call of message.tool_calls ?? []) {
    if (call.function.name !== skipTool) parts.push({ kind: 'call', text: callText(call) });
  }
  return parts;
}
