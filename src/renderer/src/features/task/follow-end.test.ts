import { describe, expect, it } from 'vitest';
import { READER_INPUT_MS, readerMovedUp } from './follow-end';

describe('readerMovedUp', () => {
  it('is the reader when the page went up right after their wheel, key or pointer', () => {
    expect(readerMovedUp(900, 400, 10_000, 10_050)).toBe(true);
    expect(readerMovedUp(900, 400, 10_000, 10_000 + READER_INPUT_MS)).toBe(true);
  });

  it('is not the reader when the page moved up on its own', () => {
    // At 64 px down, a chart mounting above the list moved the page up to 0: no input.
    expect(readerMovedUp(64, 0, 0, 60_000)).toBe(false);
    expect(readerMovedUp(900, 400, 10_000, 10_001 + READER_INPUT_MS)).toBe(false);
  });

  it('is not a move up when the page went down or stayed', () => {
    expect(readerMovedUp(400, 900, 10_000, 10_010)).toBe(false);
    expect(readerMovedUp(400, 400, 10_000, 10_010)).toBe(false);
  });
});
