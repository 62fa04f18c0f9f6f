import type { Readable } from 'node:stream';
import { readStreamLines } from './stream-lines';

/** One server-sent event: its type ('message' unless named) and its data lines joined. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Server-sent events of a response body (the WHATWG event-stream format OpenAI-compatible
 * servers stream with): `field: value` lines, a blank line ends an event, `:` lines are
 * comments (keep-alives), several `data:` lines of one event are joined with '\n'.
 */
export async function* readSseEvents(body: Readable): AsyncGenerator<SseEvent> {
  let event = 'message';
  let data: string[] = [];
  for await (const raw of readStreamLines(body)) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') {
      if (data.length > 0) yield { event, data: data.join('\n') };
      event = 'message';
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  // A stream cut right after its last data line still delivers that event.
  if (data.length > 0) yield { event, data: data.join('\n') };
}
