import { aiderFormat } from './aider';
import { clineFormat } from './cline';
import { geminiCliFormat } from './gemini-cli';
import { gooseJsonlFormat } from './goose-jsonl';
import { ampFormat } from './amp';
import { continueFormat } from './continue';
import { copilotCliFormat } from './copilot-cli';
import { cursorTranscriptFormat } from './cursor-text';
import { droidFormat } from './droid';
import { openHandsFormat } from './openhands';
import { openClawFormat, piFormat } from './pi';
import { opencodeStorageFormat } from './opencode-storage';
import { qwenCodeFormat } from './qwen-code';
import type { SessionFormat } from './session-format';

/**
 * The formats read through the SessionFormat interface, in detection order: each claims
 * only shapes the others cannot have (Gemini's `type` user/gemini messages, OpenHands'
 * action/observation events, Cline's Anthropic blocks), so order matters only for speed.
 */
export const SESSION_FORMATS = {
  'gemini-cli': geminiCliFormat,
  openhands: openHandsFormat,
  cline: clineFormat,
  // Roo Code writes Cline's files; its own name only changes the agent recorded.
  'roo-code': clineFormat,
  aider: aiderFormat,
  pi: piFormat,
  openclaw: openClawFormat,
  opencode: opencodeStorageFormat,
  'copilot-cli': copilotCliFormat,
  cursor: cursorTranscriptFormat,
  droid: droidFormat,
  amp: ampFormat,
  continue: continueFormat,
  'qwen-code': qwenCodeFormat,
  // Goose's older JSON Lines sessions (its sessions.db is a database format).
  goose: gooseJsonlFormat,
} as const satisfies Record<string, SessionFormat>;

export type SessionFormatName = keyof typeof SESSION_FORMATS;

export const DOCUMENT_SESSION_FORMATS = [
  'gemini-cli',
  'openhands',
  'cline',
  'opencode',
  'amp',
  'continue',
] as const;

export function isSessionFormatName(name: string): name is SessionFormatName {
  return Object.hasOwn(SESSION_FORMATS, name);
}
