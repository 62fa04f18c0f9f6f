/**
 * What the reader does to move through the page. Only a move up that follows one of these
 * stops following a running task at its end: the page also moves by itself (the browser
 * clamps the position when the page gets shorter for a moment, the list's virtualizer makes
 * room for rows measured above the fold, a chart mounts above the list), and those moves
 * must not leave a reader who sits at the end behind.
 */
export const READER_INPUTS = ['wheel', 'keydown', 'pointerdown', 'touchmove'] as const;

/** How long after an input a scroll still counts as the reader's (a scrollbar drag, a fling). */
export const READER_INPUT_MS = 1500;

/**
 * Whether a scroll from `lastY` to `y` is the reader leaving the end: it went up, and the
 * reader's last input (at `inputAt`, ms) came no longer than READER_INPUT_MS before `now`.
 */
export function readerMovedUp(lastY: number, y: number, inputAt: number, now: number): boolean {
  return y < lastY && now - inputAt <= READER_INPUT_MS;
}
