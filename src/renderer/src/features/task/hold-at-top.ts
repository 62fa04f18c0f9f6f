import { READER_INPUTS } from './follow-end';

/** Props marking an element that sticks to the top of the page: a held target goes below it. */
export const STICKY_TOP_PROPS = { 'data-sticky-top': '' } as const;
const STICKY_TOP_SELECTOR = '[data-sticky-top]';
/** Room above a held target: its highlight ring shows whole, under the edge or the strip. */
const HOLD_GAP_PX = 6;

export interface HoldAtTopOptions {
  /** The target's element, when it is on the page. */
  find(): HTMLElement | null;
  /** Brings the target onto the page when it is not (the virtualizer's scroll to its index). */
  bringNear(): void;
  /** What grows or shrinks as the page settles: the page's content. */
  watch: Element;
  /** Called once when the hold ends, by the reader's input or by the returned function. */
  onRelease?: () => void;
}

/**
 * Keeps a jump's target at the top of the window while the page settles, until the reader
 * moves. Whatever comes in after the jump (the header, the usage chart, the rows measured
 * around the target) changes the page's height and would push the target down or out of
 * view; each change aligns it again. The reader's first wheel, key, pointer or touch input
 * lets go. Returns the function that lets go.
 */
export function holdAtTop({ find, bringNear, watch, onRelease }: HoldAtTopOptions): () => void {
  const align = (): void => {
    const el = find();
    if (!el) return bringNear();
    const delta = el.getBoundingClientRect().top - stickyTopInset(el.ownerDocument) - HOLD_GAP_PX;
    // Sub-pixel layout leaves fractions no reader sees: not worth a scroll each.
    if (Math.abs(delta) >= 1) window.scrollBy(0, delta);
  };
  const observer = new ResizeObserver(align);
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    observer.disconnect();
    for (const type of READER_INPUTS) window.removeEventListener(type, release, true);
    onRelease?.();
  };
  bringNear();
  observer.observe(watch);
  for (const type of READER_INPUTS) {
    window.addEventListener(type, release, { passive: true, capture: true });
  }
  return release;
}

/**
 * How much of the window's top a sticky element covers once the page is scrolled to the
 * target (it sits above the target, so it is stuck by then even when it is not yet).
 */
function stickyTopInset(doc: Document): number {
  let inset = 0;
  for (const el of doc.querySelectorAll(STICKY_TOP_SELECTOR)) {
    inset = Math.max(inset, el.getBoundingClientRect().height);
  }
  return inset;
}
