import type { ServerResponse } from 'node:http';
import type { WorkbenchEvent } from '../../shared/api/events';

export const MAX_EVENT_CLIENTS = 32;
const HEARTBEAT_MS = 15_000;

/**
 * Server-sent events: each client gets every live event as one `data:` line of JSON.
 * Comments keep idle connections (and proxies) from timing out; the browser's
 * EventSource reconnects by itself after `retry` ms.
 */
export class SseChannel {
  private readonly clients = new Set<ServerResponse>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor() {
    this.heartbeat = setInterval(() => this.write(': ping\n\n'), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Takes over a response; returns false when too many clients are connected. */
  open(res: ServerResponse, onClose: () => void): boolean {
    if (this.clients.size >= MAX_EVENT_CLIENTS) return false;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n: connected\n\n');
    this.clients.add(res);
    res.on('close', () => {
      this.clients.delete(res);
      onClose();
    });
    return true;
  }

  send(event: WorkbenchEvent): void {
    this.write(`data: ${JSON.stringify(event)}\n\n`);
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private write(chunk: string): void {
    for (const res of this.clients) res.write(chunk);
  }
}
