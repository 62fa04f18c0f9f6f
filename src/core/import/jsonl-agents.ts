import path from 'node:path';
import type { JsonlSessionAgent } from './jsonl-session';
import { copilotCliAgentFormat } from './copilot-cli';
import { cursorAgentFormat } from './cursor';
import { droidAgentFormat } from './droid';
import { piAgentFormat } from './pi';
import { qwenCodeAgentFormat } from './qwen-code';

/**
 * The JSON Lines agents of jsonl-session.ts, in detection order: each sniffer claims only
 * its own line shapes (and runs before Claude Code's and Codex's, whose `type` values
 * `user`/`assistant`/`message` some of them share).
 */
/** The import formats (and source kinds) read through jsonl-session.ts. */
export type JsonlAgentId = 'pi' | 'openclaw' | 'copilot-cli' | 'qwen-code' | 'droid' | 'cursor';

export const JSONL_SESSION_AGENTS: readonly JsonlSessionAgent[] = [
  copilotCliAgentFormat,
  piAgentFormat,
  qwenCodeAgentFormat,
  droidAgentFormat,
  cursorAgentFormat,
];

/** The JSON Lines agent a parsed line of a file shows, if any. */
export function detectJsonlAgent(
  value: Record<string, unknown>,
  file: string,
): JsonlAgentId | undefined {
  const found = JSONL_SESSION_AGENTS.find((a) => a.sniffLine(value));
  if (found === piAgentFormat && /[\\/]\.openclaw[\\/]/.test(path.resolve(file))) return 'openclaw';
  return found?.agent as JsonlAgentId | undefined;
}
