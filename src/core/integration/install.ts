import fs from 'node:fs';
import path from 'node:path';
import { CwbError } from '../errors';
import { writeFileAtomic } from '../jsonl/atomic-write';
import {
  agentFiles,
  type IntegrationAgent,
  type IntegrationScope,
  type Locations,
} from './agent-files';
import { calledCwb, findOurHooks, hookCommand, withOurHook, withoutOurHooks } from './hook-entries';
import { parseJsonDoc, parseJsonValue } from './json-edit';
import {
  jsonMcpEntry,
  mcpServer,
  tomlMcpEntry,
  withJsonMcp,
  withoutJsonMcp,
  withTomlMcp,
  withoutTomlMcp,
} from './mcp-entries';

/**
 * `cwb hooks install|uninstall|status`: the compaction hook and the MCP server written into
 * each agent's own configuration by merging. A plan is made for every file first; one that
 * does not parse stops everything with an error naming it, before anything is written. Each
 * changed file is written atomically after a copy of what it held is kept beside it
 * (`<file>.cwb-backup`). Installing twice changes nothing; uninstalling removes exactly what
 * installing added.
 */

export interface FileChange {
  file: string;
  /** What it held; null when it did not exist. */
  before: string | null;
  after: string;
  /** What changes in it, for the user: "SessionStart hook (compact)", "MCP server". */
  what: string;
}

export interface IntegrationPlan {
  agent: IntegrationAgent;
  scope: IntegrationScope;
  changes: FileChange[];
  /** Files already as they should be. */
  unchanged: string[];
}

export interface IntegrationOptions extends Locations {
  /** The `cwb` executable the agent will call (absolute). */
  cwb: string;
}

type Edit = (text: string) => string;

interface Piece {
  file: string;
  format: 'json' | 'toml';
  what: string;
  install: Edit;
  uninstall: Edit;
}

function pieces(
  agent: IntegrationAgent,
  scope: IntegrationScope,
  options: IntegrationOptions,
): Piece[] {
  const files = agentFiles(agent, scope, options);
  const out: Piece[] = [];
  if (files.hooks && agent !== 'gemini-cli') {
    const command = hookCommand(options.cwb, agent);
    out.push({
      file: files.hooks,
      format: 'json',
      what: 'SessionStart hook (source compact)',
      install: (t) => withOurHook(t, command),
      uninstall: withoutOurHooks,
    });
  }
  const server = mcpServer(options.cwb);
  out.push(
    files.mcp.format === 'toml'
      ? {
          file: files.mcp.file,
          format: 'toml',
          what: 'MCP server "context-workbench"',
          install: (t) => withTomlMcp(t, server),
          uninstall: withoutTomlMcp,
        }
      : {
          file: files.mcp.file,
          format: 'json',
          what: 'MCP server "context-workbench"',
          install: (t) => withJsonMcp(t, server, agent === 'claude-code'),
          uninstall: withoutJsonMcp,
        },
  );
  return out;
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CwbError('io', `${file}: cannot be read (${(err as Error).message})`);
  }
}

/** The file's text, checked to parse; an error naming the file otherwise. */
function parsedText(piece: Piece): { before: string | null; text: string } {
  const before = readText(piece.file);
  if (piece.format === 'toml') {
    try {
      tomlMcpEntry(before ?? '');
    } catch (err) {
      throw unparsable(piece.file, (err as Error).message.split('\n')[0] ?? '');
    }
    return { before, text: before ?? '' };
  }
  const doc = parseJsonDoc(before ?? '');
  if (!doc) throw unparsable(piece.file, 'not a JSON object');
  return { before, text: doc.text };
}

function unparsable(file: string, why: string): CwbError {
  return new CwbError(
    'bad_input',
    `${file} cannot be parsed (${why}); it was left as it is: fix it or move it away, then run this again`,
  );
}

export function planIntegration(
  action: 'install' | 'uninstall',
  agent: IntegrationAgent,
  scope: IntegrationScope,
  options: IntegrationOptions,
): IntegrationPlan {
  const plan: IntegrationPlan = { agent, scope, changes: [], unchanged: [] };
  for (const piece of pieces(agent, scope, options)) {
    const { before, text } = parsedText(piece);
    let after = action === 'install' ? piece.install(text) : piece.uninstall(text);
    // A file of our own making is written the way people write JSON.
    if (before === null && piece.format === 'json') {
      after = `${JSON.stringify(parseJsonValue(after), null, 2)}\n`;
    }
    const same = before === null ? action === 'uninstall' : after === before;
    if (same) plan.unchanged.push(piece.file);
    else plan.changes.push({ file: piece.file, before, after, what: piece.what });
  }
  return plan;
}

/** What is left of a file once uninstalling took out everything install had put in it. */
export function isEmptyShell(text: string): boolean {
  return text.trim() === '' || /^\{\s*\}$/.test(text.trim());
}

export function applyPlan(plan: IntegrationPlan): void {
  for (const change of plan.changes) {
    const linked = linkTarget(change.file);
    const file = linked ?? change.file;
    if (isEmptyShell(change.after) && change.before !== null && !linked) {
      // A file install created and uninstall emptied: gone again, with its backup kept.
      writeFileAtomic(`${file}.cwb-backup`, change.before);
      fs.rmSync(file);
      continue;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (change.before !== null) writeFileAtomic(`${file}.cwb-backup`, change.before);
    const mode = change.before !== null ? fs.statSync(file).mode & 0o777 : undefined;
    writeFileAtomic(file, change.after, mode !== undefined ? { mode } : {});
  }
}

/**
 * The file a symbolic link points to (people keep settings in a dotfiles repository and
 * link them in): the atomic write goes there, since renaming over the link would replace
 * the user's link by a plain file. Undefined when `file` is not a link.
 */
function linkTarget(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return undefined;
  }
  if (!stat.isSymbolicLink()) return undefined;
  try {
    return fs.realpathSync(file);
  } catch {
    throw new CwbError(
      'bad_input',
      `${file} is a symbolic link to ${fs.readlinkSync(file)}, which is not there; nothing was written`,
    );
  }
}

export interface PieceStatus {
  file: string;
  what: string;
  installed: boolean;
  /** The `cwb` it calls, and whether that file is there. */
  calls?: string;
  callsExists?: boolean;
  error?: string;
}

export function integrationStatus(
  agent: IntegrationAgent,
  scope: IntegrationScope,
  options: IntegrationOptions,
): PieceStatus[] {
  return pieces(agent, scope, options).map((piece) => {
    const status: PieceStatus = { file: piece.file, what: piece.what, installed: false };
    let text: string;
    try {
      text = parsedText(piece).text;
    } catch (err) {
      return { ...status, error: (err as Error).message };
    }
    let calls: string | undefined;
    if (piece.what.startsWith('SessionStart')) {
      const ours = findOurHooks(text)[0];
      calls = ours && calledCwb(ours.command);
    } else {
      calls = (piece.format === 'toml' ? tomlMcpEntry(text) : jsonMcpEntry(text))?.command;
    }
    if (calls === undefined) return status;
    return { ...status, installed: true, calls, callsExists: fs.existsSync(calls) };
  });
}
