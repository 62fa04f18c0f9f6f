import fs from 'node:fs';
import { UsageSamples } from './usage-samples';
import { SCAN_START, scanUsageFigures, type ScanPosition } from './usage-scan';

/** Figures of ~1.5 million messages in all; past that the least recently used task goes. */
const DEFAULT_MAX_BYTES = 48 * 1024 * 1024;

export interface TaskFigures {
  samples: UsageSamples;
  /** Complete lines of messages.jsonl: the task's message count. */
  lines: number;
}

interface Entry {
  dev: number;
  ino: number;
  position: ScanPosition;
  samples: UsageSamples;
  /** The scan under way: concurrent requests share it instead of reading the file twice. */
  scanning: Promise<TaskFigures> | null;
}

/**
 * The per-message usage figures of recently viewed tasks, kept between requests. messages.jsonl
 * only grows, so a later request reads just the lines appended since the last one (by byte
 * offset); a file replaced (another inode) or shorter than what was read is read again
 * from the start. A task bigger than the whole budget is read for each request and not kept.
 */
export class UsageFiguresCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  async figures(file: string): Promise<TaskFigures> {
    const stat = await fs.promises.stat(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (!stat) {
      this.entries.delete(file);
      return { samples: new UsageSamples(), lines: 0 };
    }
    let entry = this.entries.get(file);
    if (
      !entry ||
      entry.dev !== stat.dev ||
      entry.ino !== stat.ino ||
      stat.size < entry.position.offset
    ) {
      entry = {
        dev: stat.dev,
        ino: stat.ino,
        position: SCAN_START,
        samples: new UsageSamples(),
        scanning: null,
      };
    }
    // Most recently used last: eviction takes from the front.
    this.entries.delete(file);
    this.entries.set(file, entry);
    if (entry.scanning) return entry.scanning;
    if (stat.size === entry.position.offset) {
      return { samples: entry.samples, lines: entry.position.lines };
    }
    const current = entry;
    current.scanning = scanUsageFigures(file, current.position, (f) => current.samples.push(f))
      .then((position) => {
        current.position = position;
        return { samples: current.samples, lines: position.lines };
      })
      .catch((err: unknown) => {
        // Some lines may be in the samples already: start over next time.
        if (this.entries.get(file) === current) this.entries.delete(file);
        throw err;
      })
      .finally(() => {
        current.scanning = null;
        this.evict();
      });
    return current.scanning;
  }

  private evict(): void {
    let total = 0;
    for (const e of this.entries.values()) total += e.samples.bytes;
    for (const [file, e] of this.entries) {
      if (total <= this.maxBytes) break;
      if (e.scanning) continue;
      this.entries.delete(file);
      total -= e.samples.bytes;
    }
  }
}
