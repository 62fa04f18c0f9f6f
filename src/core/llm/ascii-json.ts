/**
 * JSON text with every character outside ASCII written as a `\uXXXX` escape: the same
 * value, and pure ASCII on the wire.
 *
 * For the parts of a request we write ourselves (the model name, the tool definitions):
 * servers that keep a string at the width of its widest character (V8, CPython) decode a
 * whole request body at two bytes per character when a single character of it is beyond
 * Latin-1. One arrow in a tool's description made a 79 MB request take 1.4× as long to
 * parse in the bench's scripted LLM as the same request without it (issue #17).
 * Message contents are left as they are: they are the user's text.
 */
export function asciiJson(json: string): string {
  // Outside strings JSON has only ASCII, so every match is inside a string, where an escape
  // means the same character (a surrogate pair becomes two escapes, as JSON allows).
  return json.replace(NON_ASCII, escape);
}

const NON_ASCII = /[\u0080-\uffff]/g;

function escape(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
