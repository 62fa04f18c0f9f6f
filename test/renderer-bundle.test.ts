import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from './support/renderer-build';

/**
 * The first view's script is what a browser parses before any row appears (on 2 cores,
 * most of the time to first rows): libraries only other views need load with those views.
 * Each marker below is a string its library keeps through minification.
 */
const LATER = [
  { library: 'zod (the API schemas: settings, export, compaction)', marker: 'invalid_type' },
  { library: 'uPlot (the usage chart)', marker: 'u-legend' },
  { library: '@tanstack/react-table (the tool-call table)', marker: 'getSortedRowModel' },
];
/** React DOM alone is ~200 KB; the table, the timeline and the app around them fit in this. */
const FIRST_SCRIPT_BUDGET = 340 * 1024;

function firstScripts(dir: string): { name: string; text: string }[] {
  const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
  const names = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  return names.map((name) => ({ name, text: fs.readFileSync(path.join(dir, name), 'utf8') }));
}

describe('the renderer bundle', () => {
  it('keeps the first view’s scripts small and free of libraries other views need', () => {
    const dir = ensureRendererBuilt();
    const scripts = firstScripts(dir);
    expect(scripts.length).toBeGreaterThan(0);
    for (const { library, marker } of LATER) {
      const carrying = scripts.filter((s) => s.text.includes(marker)).map((s) => s.name);
      expect(carrying, `${library} is in the first view's scripts`).toEqual([]);
      // The marker is real: the library is in the build, in a chunk loaded later.
      const all = fs.readdirSync(path.join(dir, 'assets')).filter((n) => n.endsWith('.js'));
      const later = all.filter((n) =>
        fs.readFileSync(path.join(dir, 'assets', n), 'utf8').includes(marker),
      );
      expect(later.length, `${library}: marker ${marker} found nowhere`).toBeGreaterThan(0);
    }
    const bytes = scripts.reduce((sum, s) => sum + Buffer.byteLength(s.text), 0);
    expect(bytes, scripts.map((s) => `${s.name} ${s.text.length}`).join(', ')).toBeLessThan(
      FIRST_SCRIPT_BUDGET,
    );
  });
});
