import { lazy, Suspense, useEffect, useState } from 'react';

// The list itself loads the first time `?` is pressed: the first view's script stays small
// (test/renderer-bundle.test.ts).
const KeysDialog = lazy(() => import('./keys-dialog').then((m) => ({ default: m.KeysDialog })));

/** Whether a key press belongs to a field or a dialog rather than to the page. */
export function typingOrDialog(e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement | null;
  if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return true;
  return Boolean(target?.isContentEditable || document.querySelector('dialog[open]'));
}

/** `?` anywhere (outside a field) lists the keys. */
export function KeysOverlay() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || typingOrDialog(e)) return;
      e.preventDefault();
      setOpen(true);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <KeysDialog onClose={() => setOpen(false)} />
    </Suspense>
  );
}
