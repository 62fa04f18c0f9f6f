import { lazy, Suspense } from 'react';

// The export dialog carries the transfer API's schemas (zod): loaded when it opens, so the
// first view's script stays without them (test/renderer-bundle.test.ts).
const ExportDialog = lazy(() =>
  import('./export-dialog').then((m) => ({ default: m.ExportDialog })),
);

/** The export dialog, fetched the first time it is opened. */
export function LazyExportDialog(props: { uuids: string[]; onClose(): void }) {
  return (
    <Suspense fallback={null}>
      <ExportDialog {...props} />
    </Suspense>
  );
}
