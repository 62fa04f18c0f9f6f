/**
 * Text quoted from a file into an error message (a JSON parser's excerpt of a bad line),
 * with control characters, bidirectional overrides and line separators written as `\uXXXX`:
 * a hostile file must not drive the terminal the message is printed on (ESC sequences),
 * hide part of it, or split one error into several lines.
 */
export function printable(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
