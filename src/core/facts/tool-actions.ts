/**
 * What an agent did, read from its tool calls whatever agent wrote them: which tools read,
 * search, write, patch or run commands (the names Claude Code, Codex, Cline/Roo, OpenHands,
 * SWE-agent and our own agent use), the paths in their arguments, the command a shell call
 * ran and how it ended. The fact extractor and the extractive digest both classify actions
 * here, so they agree on what a "file written" or a "command" is.
 */

export type ActionKind = 'read' | 'search' | 'write' | 'patch' | 'command' | 'other';

const READ_TOOLS = new Set([
  'readfile',
  'read',
  'view',
  'viewfile',
  'open',
  'openfile',
  'cat',
  'readfiles',
  'readmanyfiles',
]);
const SEARCH_TOOLS = new Set([
  'grep',
  'listdir',
  'ls',
  'listfiles',
  'searchfiles',
  'findfile',
  'glob',
  'codebasesearch',
]);
const WRITE_TOOLS = new Set([
  'writefile',
  'write',
  'writetofile',
  'edit',
  'editfile',
  'multiedit',
  'create',
  'createfile',
  'strreplace',
  'applydiff',
  'insertcontent',
  'searchandreplace',
  'replaceinfile',
  'notebookedit',
]);
/** One tool for viewing and editing (Anthropic's text editor): `view` reads, the rest write. */
const EDITOR_TOOLS = new Set(['strreplaceeditor', 'strreplacebasededittool']);
const PATCH_TOOLS = new Set(['applypatch', 'patch']);
const COMMAND_TOOLS = new Set([
  'runcommand',
  'bash',
  'shell',
  'exec',
  'execcommand',
  'executecommand',
  'runterminalcmd',
  'terminal',
  'localshell',
  'containerexec',
  'shellcommand',
]);
/** Text-protocol commands (SWE-agent's file viewer and the usual shell readers/writers). */
export const TEXT_READ = new Set(['open', 'cat', 'head', 'tail', 'less', 'more', 'nl', 'view']);
export const TEXT_WRITE = new Set(['create', 'touch', 'edit']);
export const TEXT_SEARCH = new Set([
  'find_file',
  'search_dir',
  'search_file',
  'grep',
  'rg',
  'find',
  'ls',
  'goto',
  'scroll_up',
  'scroll_down',
]);
const PATH_KEYS = [
  'path',
  'file_path',
  'filename',
  'filepath',
  'file',
  'notebook_path',
  'target_file',
  'absolute_path',
];
/** Shell commands that show files or search them: their output is content, not an outcome. */
const READER_COMMANDS = new Set([
  'cat',
  'sed',
  'head',
  'tail',
  'nl',
  'less',
  'more',
  'rg',
  'grep',
  'ag',
  'find',
  'fd',
  'ls',
  'tree',
  'wc',
  'awk',
  'jq',
  'bat',
  'git show',
  'git diff',
  'git log',
  'git blame',
]);

/** Whether a shell command only shows files (`sed -n 1,200p x`, `rg foo`, `cd d && cat x`). */
export function isReaderCommand(command: string): boolean {
  const last = firstLine(command)
    .split(/&&|;|\|/)
    .map((s) => s.trim())
    .filter(Boolean);
  // A pipeline that ends in a reader still shows content (`rg x | head`); the first stage decides.
  const stage = last.find((s) => !/^cd\s/.test(s)) ?? '';
  const words = stage.split(/\s+/);
  return READER_COMMANDS.has(words[0] ?? '') || READER_COMMANDS.has(words.slice(0, 2).join(' '));
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'powershell', 'pwsh', 'cmd', 'cmd.exe']);

export function normalizeToolName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** What a structured tool call does, by its name (and, for the editor tool, its command). */
export function actionKind(name: string, args: Record<string, unknown> | undefined): ActionKind {
  const n = normalizeToolName(name);
  if (EDITOR_TOOLS.has(n)) return args?.command === 'view' ? 'read' : 'write';
  if (READ_TOOLS.has(n)) return 'read';
  if (SEARCH_TOOLS.has(n)) return 'search';
  if (WRITE_TOOLS.has(n)) return 'write';
  if (PATCH_TOOLS.has(n)) return 'patch';
  if (COMMAND_TOOLS.has(n)) return 'command';
  return 'other';
}

/** The verb of a text-protocol command (`open x`, `edit 3:5`), as an action kind. */
export function textActionKind(command: string): ActionKind {
  const verb = firstLine(command).split(/\s+/)[0] ?? '';
  if (TEXT_WRITE.has(verb)) return 'write';
  if (TEXT_READ.has(verb)) return 'read';
  if (TEXT_SEARCH.has(verb)) return 'search';
  return 'command';
}

/** Paths named in a tool call's arguments (`path`, `file_path`, `paths: [...]`, …). */
export function argPaths(args: Record<string, unknown> | undefined): string[] {
  if (!args) return [];
  const out: string[] = [];
  for (const key of PATH_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim()) out.push(value.trim());
  }
  if (Array.isArray(args.paths))
    for (const p of args.paths) if (typeof p === 'string' && p.trim()) out.push(p.trim());
  return out;
}

/** The command line a shell tool ran: `command`, `cmd` or `script`, argv joined. */
export function commandOf(args: Record<string, unknown> | undefined, rawArgs: string): string {
  const argv = args?.command ?? args?.cmd ?? args?.script ?? rawArgs;
  return commandText(argv);
}

/** The argv of a shell call when it is `apply_patch` (Codex runs patches through its shell). */
export function shellPatch(args: Record<string, unknown> | undefined): string | undefined {
  const argv = args?.command ?? args?.cmd;
  return Array.isArray(argv) && argv[0] === 'apply_patch' ? String(argv[1] ?? '') : undefined;
}

export function commandText(argv: unknown): string {
  if (typeof argv === 'string') return argv;
  if (Array.isArray(argv)) {
    const words = argv.map(String);
    // ["bash", "-lc", "npm test"]: the script is what was run.
    if (words.length >= 3 && SHELLS.has(words[0]!) && /^-\w*c$/.test(words[1]!))
      return words.slice(2).join(' ');
    return words.join(' ');
  }
  return '';
}

/** The text of a patch tool's arguments. */
export function patchText(args: Record<string, unknown> | undefined, rawArgs: string): string {
  for (const key of ['input', 'patch', 'diff', 'content'])
    if (typeof args?.[key] === 'string') return args[key] as string;
  return rawArgs;
}

/** Files a patch touches: Codex `*** Update File: x` headers, or unified-diff `+++ b/x`. */
export function patchPaths(patch: string): string[] {
  const out: string[] = [];
  const re = /^(?:\*\*\* (?:Add|Update|Delete) File: |\*\*\* Move to: |\+\+\+ (?:b\/)?)(.+)$/gm;
  for (let m = re.exec(patch); m; m = re.exec(patch)) {
    const p = m[1]!.trim();
    if (p && p !== '/dev/null') out.push(p);
  }
  return out;
}

export function parseArgs(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `exit code 1` (our run_command), `Exit code: 1`, `exited with code 1`, `"exit_code": 1`. */
export function exitStatus(result: string): string | undefined {
  const re = /\bexit(?:ed)?(?:\s+with)?[\s_-]*(?:code|status)["']?\s*[:=]?\s*(-?\d+)/gi;
  let last: string | undefined;
  for (let m = re.exec(result); m; m = re.exec(result)) last = m[1];
  if (last !== undefined) return `exit ${last}`;
  if (/\bkilled by (?:timeout|signal)|\btimed out\b/i.test(result)) return 'killed';
  return undefined;
}

const SHELL_FENCES = new Set(['bash', 'sh', 'shell', 'console', 'zsh']);

/**
 * A text-protocol agent's action: its message ends with a code fence holding one command
 * (SWE-agent). A fence followed by more prose is an example, not an action.
 */
export function fencedCommand(content: string): string | undefined {
  // Index arithmetic rather than a regex: assistant messages can be long, and a lazy match
  // anchored at the end would rescan the text from every fence.
  const text = content.trimEnd();
  if (!text.endsWith('```')) return undefined;
  const close = text.length - 3;
  const open = text.lastIndexOf('```', close - 1);
  if (open < 0) return undefined;
  const inner = text.slice(open + 3, close);
  const newline = inner.indexOf('\n');
  if (newline < 0) return undefined;
  const language = inner.slice(0, newline).trim();
  if (language && !SHELL_FENCES.has(language)) return undefined;
  const command = inner.slice(newline + 1).trim();
  return command || undefined;
}

export function firstLine(text: string): string {
  const trimmed = text.trim();
  const nl = trimmed.indexOf('\n');
  return nl < 0 ? trimmed : trimmed.slice(0, nl).trim();
}

/** One line, at most `max` characters (an ellipsis marks a cut). */
export function clip(text: string, max: number): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
