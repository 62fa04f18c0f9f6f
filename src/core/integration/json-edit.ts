import {
  applyEdits,
  findNodeAtLocation,
  format,
  modify,
  parse,
  parseTree,
  type Node,
  type ParseError,
} from 'jsonc-parser';

/**
 * Edits of an agent's JSON settings that touch only what they change: jsonc-parser computes
 * the smallest text edit, so every other key, hook, comment and the file's own indentation
 * stay byte for byte. Removing what an insertion added gives the original text back.
 */

export type JsonPath = (string | number)[];

export interface JsonDoc {
  text: string;
  root: Node | undefined;
}

/** Parses `text` (comments allowed, as Gemini CLI's settings do); undefined when it is not JSON. */
export function parseJsonDoc(text: string): JsonDoc | undefined {
  if (text.trim() === '') return { text: '{}\n', root: parseTree('{}') };
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || root?.type !== 'object') return undefined;
  return { text, root };
}

export function parseJsonValue(text: string): unknown {
  return parse(text, [], { allowTrailingComma: true });
}

function formatting(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/**
 * jsonc-parser's own formatting of an edit reformats its neighbours too (a one-line sibling
 * becomes several lines), so the edit is made unformatted and then only the inserted text is
 * formatted, in the file's indentation.
 */
function edited(text: string, path: JsonPath, value: unknown, isArrayInsertion: boolean): string {
  const edits = modify(text, path, value, { isArrayInsertion });
  let out = applyEdits(text, edits);
  for (const edit of edits) {
    if (!edit.content) continue;
    const range = { offset: edit.offset, length: edit.content.length };
    out = applyEdits(out, format(out, range, formatting(text)));
  }
  return out;
}

export function setJson(text: string, path: JsonPath, value: unknown): string {
  return edited(text, path, value, false);
}

export function insertJson(text: string, path: JsonPath, value: unknown): string {
  return edited(text, path, value, true);
}

/**
 * Removes the property or element at `path` with exactly the text an insertion at the end
 * added: from the end of the one before it (the comma, the line break, the indentation) to
 * its own end. The first of several goes with what separates it from the next; an only
 * child leaves its parent empty (`{}`, `[]`).
 */
export function removeJson(text: string, path: JsonPath): string {
  const target = nodeAt(text, path);
  if (!target) return text;
  const node = target.parent?.type === 'property' ? target.parent : target;
  const parent = node.parent;
  const siblings = parent?.children ?? [];
  const i = siblings.indexOf(node);
  if (!parent || i < 0) return text;
  const end = (n: Node): number => n.offset + n.length;
  if (i > 0) return text.slice(0, end(siblings[i - 1]!)) + text.slice(end(node));
  if (siblings.length > 1) return text.slice(0, node.offset) + text.slice(siblings[1]!.offset);
  return text.slice(0, parent.offset + 1) + text.slice(end(parent) - 1);
}

export function nodeAt(text: string, path: JsonPath): Node | undefined {
  const root = parseTree(text, [], { allowTrailingComma: true });
  return root ? findNodeAtLocation(root, path) : undefined;
}
