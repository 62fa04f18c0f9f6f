/** What an edit-like tool call changes, read from its arguments (any agent's spelling). */
export type EditCall =
  | { kind: 'replace'; path: string; edits: { before: string; after: string }[] }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'patch'; patch: string };

const PATCH_START = '*** Begin Patch';

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Edit / MultiEdit / str_replace (Claude Code, the text editor tool), Write / write_file,
 * and apply_patch (Codex: the patch in `input`, in `patch`, or in a shell command's argv).
 * Anything else is not an edit (undefined).
 */
export function editCallOf(name: string, args: unknown): EditCall | undefined {
  if (args === null || typeof args !== 'object') {
    const text = str(args);
    return text?.includes(PATCH_START) ? { kind: 'patch', patch: text } : undefined;
  }
  const a = args as Record<string, unknown>;
  const path = str(a.file_path) ?? str(a.path) ?? str(a.filename) ?? '';
  const before = str(a.old_string) ?? str(a.old_str);
  const after = str(a.new_string) ?? str(a.new_str);
  if (before !== undefined && after !== undefined)
    return { kind: 'replace', path, edits: [{ before, after }] };
  if (Array.isArray(a.edits)) {
    const edits = a.edits.flatMap((e: unknown) => {
      const x = (e ?? {}) as Record<string, unknown>;
      const b = str(x.old_string) ?? str(x.old_str);
      const n = str(x.new_string) ?? str(x.new_str);
      return b !== undefined && n !== undefined ? [{ before: b, after: n }] : [];
    });
    if (edits.length > 0) return { kind: 'replace', path, edits };
  }
  const patch =
    str(a.input) ??
    str(a.patch) ??
    (Array.isArray(a.command) ? a.command.find((c) => str(c)?.includes(PATCH_START)) : undefined);
  if (typeof patch === 'string' && patch.includes(PATCH_START)) return { kind: 'patch', patch };
  const content = str(a.content) ?? str(a.file_text);
  if (content !== undefined && path && /write|create/i.test(`${name} ${str(a.command) ?? ''}`))
    return { kind: 'write', path, content };
  return undefined;
}

/** The arguments as a value: JSON text parsed, anything else as it is. */
export function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const EXIT =
  /(?:exit(?:ed with)?(?: code|_code| status)?[:=]?\s*|Process exited with code\s+)(-?\d+)/i;

/** The exit status a tool result reports in its text ("Exit code: 1", "exit_code=0"), if any. */
export function exitStatusOf(content: string | null): number | undefined {
  if (!content) return undefined;
  const m = EXIT.exec(content.slice(0, 400)) ?? EXIT.exec(content.slice(-400));
  return m ? Number(m[1]) : undefined;
}
