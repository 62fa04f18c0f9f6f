/**
 * JSON.stringify of a text, remembered for the next line that holds the same text: a tool's
 * output is both its tools.jsonl record's `result` and a message's content (messages.jsonl,
 * current.jsonl), written one after the other, and encoding it twice was a twentieth of a
 * first sync. One text only, forgotten at its second use: no conversation is kept.
 */
let text: string | undefined;
let json = '';

export function jsonOfText(value: string): string {
  if (value === text) {
    const found = json;
    text = undefined;
    json = '';
    return found;
  }
  text = value;
  json = JSON.stringify(value);
  return json;
}
