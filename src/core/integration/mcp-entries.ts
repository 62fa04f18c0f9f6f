import { getNodeValue } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { MCP_SERVER_NAME } from './agent-files';
import { nodeAt, removeJson, setJson } from './json-edit';

/**
 * The MCP server entry in each agent's list: `mcpServers.context-workbench` in JSON
 * (Claude Code, Gemini CLI) and `[mcp_servers.context-workbench]` in Codex's config.toml.
 * TOML is edited as text (a table appended at the end, removed with the blank line before
 * it), so comments and the layout of the rest stay byte for byte; smol-toml only checks
 * that the file parses and reads what is there.
 */

export interface McpServer {
  command: string;
  args: string[];
}

export function mcpServer(cwb: string): McpServer {
  return { command: cwb, args: ['mcp'] };
}

export function jsonMcpEntry(text: string): McpServer | undefined {
  const node = nodeAt(text, ['mcpServers', MCP_SERVER_NAME]);
  return node ? (getNodeValue(node) as McpServer) : undefined;
}

export function withJsonMcp(text: string, server: McpServer, claude: boolean): string {
  const current = jsonMcpEntry(text);
  if (current && current.command === server.command && sameArgs(current.args, server.args)) {
    return text;
  }
  const entry = claude ? { type: 'stdio', ...server } : server;
  if (nodeAt(text, ['mcpServers'])?.type === 'object') {
    return setJson(text, ['mcpServers', MCP_SERVER_NAME], entry);
  }
  return setJson(text, ['mcpServers'], { [MCP_SERVER_NAME]: entry });
}

export function withoutJsonMcp(text: string): string {
  if (!jsonMcpEntry(text)) return text;
  let out = removeJson(text, ['mcpServers', MCP_SERVER_NAME]);
  if (nodeAt(out, ['mcpServers'])?.children?.length === 0) out = removeJson(out, ['mcpServers']);
  return out;
}

function sameArgs(a: unknown, b: readonly string[]): boolean {
  return Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Throws when the text is not TOML. */
export function tomlMcpEntry(text: string): McpServer | undefined {
  const doc = parseToml(text) as { mcp_servers?: Record<string, McpServer> };
  return doc.mcp_servers?.[MCP_SERVER_NAME];
}

const HEADER = `[mcp_servers.${MCP_SERVER_NAME}]`;

export function withTomlMcp(text: string, server: McpServer): string {
  const current = tomlMcpEntry(text);
  if (current && current.command === server.command && sameArgs(current.args, server.args)) {
    return text;
  }
  const base = current ? withoutTomlMcp(text) : text;
  const block = `${HEADER}\ncommand = ${JSON.stringify(server.command)}\nargs = ${JSON.stringify(server.args)}\n`;
  if (base === '') return block;
  return `${base.endsWith('\n') ? base : `${base}\n`}\n${block}`;
}

/** Removes our table (header to the next table or the end) and the blank line before it. */
export function withoutTomlMcp(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === HEADER);
  if (start < 0) return text;
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
  // Blank lines at the end of the block belong to what follows it.
  while (end > start + 1 && lines[end - 1]!.trim() === '' && end < lines.length) end--;
  let from = start;
  if (from > 0 && lines[from - 1]!.trim() === '') from--;
  // At the end of the file the block took the file's last newline with it: give it back.
  if (end === lines.length) return from > 0 ? `${lines.slice(0, from).join('\n')}\n` : '';
  return [...lines.slice(0, from), ...lines.slice(end)].join('\n');
}
