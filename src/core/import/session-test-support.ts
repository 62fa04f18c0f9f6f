import type { SessionEvent, SessionFormat } from './session-format';

/** All events of a file, for tests of format modules. */
export async function collectEvents(
  format: SessionFormat,
  file: string,
  doc?: unknown,
): Promise<SessionEvent[]> {
  const events: SessionEvent[] = [];
  for await (const e of format.parse(file, doc)) events.push(e);
  return events;
}

/** Keys of the message events, in order. */
export function messageKeys(events: SessionEvent[]): string[] {
  return events.flatMap((e) => (e.kind === 'message' ? [e.key] : []));
}
