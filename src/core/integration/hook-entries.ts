import type { Node } from 'jsonc-parser';
import { getNodeValue } from 'jsonc-parser';
import { insertJson, nodeAt, removeJson, setJson } from './json-edit';

/**
 * The `SessionStart` hook `cwb hooks install` adds to Claude Code's `settings.json` or
 * Codex's `hooks.json` (both read Claude Code's shape: event → matcher groups → hooks):
 *
 *   {"matcher": "compact", "hooks": [{"type": "command", "command": "'/…/cwb' hook claude-code", "timeout": 10}]}
 *
 * Ours are recognized by their command (`… cwb hook <agent>`), so other hooks of the same
 * event, and other groups, are never touched.
 */

const OUR_COMMAND = /(?:^|[/\\'"\s])cwb(?:\.js|\.cmd)?['"]?\s+hook\s+(claude-code|codex)\b/;
const TIMEOUT_SECONDS = 10;

export function isOurHookCommand(command: unknown): boolean {
  return typeof command === 'string' && OUR_COMMAND.test(command);
}

/** The executable part of one of our commands: what it calls. */
export function calledCwb(command: string): string {
  const m = /^\s*(?:'([^']*)'|"([^"]*)"|(\S+))/.exec(command);
  return m?.[1] ?? m?.[2] ?? m?.[3] ?? command;
}

export function hookCommand(cwb: string, agent: 'claude-code' | 'codex'): string {
  const quoted = /^[\w@%+=:,./-]+$/.test(cwb) ? cwb : `'${cwb.replace(/'/g, `'\\''`)}'`;
  return `${quoted} hook ${agent}`;
}

interface Found {
  group: number;
  hook: number;
  command: string;
  hooksInGroup: number;
}

/** Our hooks under `hooks.SessionStart`, last first (so removing them keeps indexes valid). */
export function findOurHooks(text: string): Found[] {
  const groups = nodeAt(text, ['hooks', 'SessionStart']);
  if (groups?.type !== 'array') return [];
  const found: Found[] = [];
  groups.children?.forEach((group, g) => {
    const hooks = childArray(group, 'hooks');
    hooks?.children?.forEach((hook, h) => {
      const value = getNodeValue(hook) as { command?: unknown } | undefined;
      if (isOurHookCommand(value?.command)) {
        found.push({
          group: g,
          hook: h,
          command: String(value!.command),
          hooksInGroup: hooks.children!.length,
        });
      }
    });
  });
  return found.reverse();
}

function childArray(node: Node, key: string): Node | undefined {
  const prop = node.children?.find((p) => p.children?.[0]?.value === key);
  const value = prop?.children?.[1];
  return value?.type === 'array' ? value : undefined;
}

export function withOurHook(text: string, command: string): string {
  const ours = findOurHooks(text);
  if (ours.length === 1 && ours[0]!.command === command) return text;
  if (ours.length === 1) {
    const { group, hook } = ours[0]!;
    return setJson(text, ['hooks', 'SessionStart', group, 'hooks', hook, 'command'], command);
  }
  let out = withoutOurHooks(text);
  const entry = {
    matcher: 'compact',
    hooks: [{ type: 'command', command, timeout: TIMEOUT_SECONDS }],
  };
  if (nodeAt(out, ['hooks', 'SessionStart'])?.type === 'array') {
    out = insertJson(out, ['hooks', 'SessionStart', -1], entry);
  } else if (nodeAt(out, ['hooks'])?.type === 'object') {
    out = setJson(out, ['hooks', 'SessionStart'], [entry]);
  } else {
    out = setJson(out, ['hooks'], { SessionStart: [entry] });
  }
  return out;
}

/** Removes our hooks, then the group, event and `hooks` object they leave empty. */
export function withoutOurHooks(text: string): string {
  let out = text;
  for (const found of findOurHooks(text)) {
    out =
      found.hooksInGroup === 1
        ? removeJson(out, ['hooks', 'SessionStart', found.group])
        : removeJson(out, ['hooks', 'SessionStart', found.group, 'hooks', found.hook]);
  }
  if (out === text) return text;
  if (nodeAt(out, ['hooks', 'SessionStart'])?.children?.length === 0) {
    out = removeJson(out, ['hooks', 'SessionStart']);
  }
  if (nodeAt(out, ['hooks'])?.children?.length === 0) out = removeJson(out, ['hooks']);
  return out;
}
