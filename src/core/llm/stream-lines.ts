import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { ResponseError } from './llm-response';

/** A single line of an answer longer than this is refused rather than held in memory. */
export const MAX_RESPONSE_LINE_CHARS = 32 * 1024 * 1024;

/**
 * The lines of a streamed response body, without their '\n' (a trailing '\r' is left to the
 * caller). UTF-8 characters split across chunks are decoded whole.
 */
export async function* readStreamLines(
  body: Readable,
  maxLineChars = MAX_RESPONSE_LINE_CHARS,
): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let newline = pending.indexOf('\n'); newline !== -1;) {
      yield pending.slice(start, newline);
      start = newline + 1;
      newline = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
    if (pending.length > maxLineChars) {
      throw new ResponseError(`a line of the response is longer than ${maxLineChars} characters`);
    }
  }
  pending += decoder.end();
  if (pending !== '') yield pending;
}

/** The whole body as text, for non-streamed answers; refuses bodies over `maxChars`. */
export async function readBodyText(
  body: Readable,
  maxChars = MAX_RESPONSE_LINE_CHARS,
): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (text.length > maxChars) {
      throw new ResponseError(`the response is longer than ${maxChars} characters`);
    }
  }
  return text + decoder.end();
}

/**
 * At most `maxChars` of an error body; the rest is discarded so a huge HTML error page
 * cannot fill memory. Never throws: an error body that fails to arrive is just empty.
 */
export async function readErrorBody(body: Readable, maxChars = 64 * 1024): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  try {
    for await (const chunk of body as AsyncIterable<Buffer | string>) {
      text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      if (text.length >= maxChars) break;
    }
  } catch {
    // keep what arrived
  } finally {
    body.destroy();
  }
  return text.slice(0, maxChars);
}
