import { describe, expect, it } from 'vitest';
import { exposedGc, heapTrimmer } from './heap-trim';

/** A heap whose size the test sets; a collection brings it back to what is "alive". */
function fakeHeap(alive: number) {
  let used = alive;
  let collections = 0;
  return {
    /** Garbage: gone at the next collection. */
    grow: (bytes: number) => (used += bytes),
    /** Objects that stay alive (a step's tool calls): a collection keeps them. */
    keep: (bytes: number) => {
      alive += bytes;
      used += bytes;
    },
    usedBytes: () => used,
    gc: () => {
      collections++;
      used = alive;
    },
    collections: () => collections,
  };
}

/** A fake heap with `alive` bytes alive and a trimmer's check on it with a 2 MB slack. */
function trimmedHeap(alive: number) {
  const heap = fakeHeap(alive);
  const trimmer = heapTrimmer({ slackBytes: 2_000_000, gc: heap.gc, usedBytes: heap.usedBytes });
  return { heap, trim: trimmer.check, collections: heap.collections };
}

describe('heapTrimmer', () => {
  it('collects when asked, and measures the next growth from what that left', () => {
    const heap = fakeHeap(6_000_000);
    // What starting up left: garbage a check alone would count as the base.
    heap.grow(1_500_000);
    const trimmer = heapTrimmer({ slackBytes: 2_000_000, gc: heap.gc, usedBytes: heap.usedBytes });
    trimmer.collect();
    expect(heap.collections()).toBe(1);
    heap.grow(2_000_000);
    trimmer.check();
    expect(heap.collections()).toBe(2);
  });

  it('collects once the heap has grown the slack past what the last collection left', () => {
    const { heap, trim, collections } = trimmedHeap(8_000_000);

    heap.grow(1_999_999);
    trim();
    expect(collections()).toBe(0);

    heap.grow(1);
    trim();
    expect(collections()).toBe(1);
  });

  it('measures the next growth from what the collection left, not from the start', () => {
    const { heap, trim, collections } = trimmedHeap(8_000_000);
    heap.keep(1_500_000);
    heap.grow(1_000_000);
    trim();
    expect(collections()).toBe(1);
    // 9.5 MB are alive now: 1.9 MB more is within the slack (from the start it would not be).
    heap.grow(1_900_000);
    trim();
    expect(collections()).toBe(1);
    heap.grow(100_000);
    trim();
    expect(collections()).toBe(2);
  });

  it('does not collect on every call once the heap is above its slack for good', () => {
    const { heap, trim, collections } = trimmedHeap(10_000_000);
    // Everything is alive: a collection frees nothing.
    heap.keep(2_000_000);
    trim();
    trim();
    trim();
    expect(collections()).toBe(1);
  });
});

describe('exposedGc', () => {
  it('is undefined without --expose-gc and calls the global gc with it', () => {
    const global = globalThis as { gc?: unknown };
    const saved = global.gc;
    try {
      delete global.gc;
      expect(exposedGc()).toBeUndefined();
      let calls = 0;
      global.gc = () => calls++;
      exposedGc()?.();
      expect(calls).toBe(1);
    } finally {
      if (saved === undefined) delete global.gc;
      else global.gc = saved;
    }
  });
});
