import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  axisDomain,
  axisTicks,
  clusterMarks,
  intersects,
  layoutPlot,
  type PlotInput,
  type PlotLayout,
} from './strategy-plot';

const point = (label: string, x: number, y: number, isDefault = false): PlotInput => ({
  key: label,
  label,
  x,
  y,
  isDefault,
});

/** What evaluateCompaction answered for the codex fixture after an importance-window compaction. */
const REAL = [
  point('summarize', 96.6, 100),
  point('retain-summary', 96.9, 100),
  point('condense', 96.6, 100),
  point('truncate', 99.9, 4.8),
  point('extractive', 96.5, 100),
  point('tool-output-trim+summarize', 96.6, 100, true),
];

function markBox(layout: PlotLayout, key: string) {
  const m = layout.marks.find((k) => k.key === key)!;
  return { x: m.cx - 5, y: m.cy - 5, width: 10, height: 10 };
}

/** No label over another label, over a marker it does not name, or outside the SVG. */
function expectReadable(layout: PlotLayout): void {
  const { labels } = layout;
  for (let i = 0; i < labels.length; i++) {
    const a = labels[i]!;
    expect(a.box.x).toBeGreaterThanOrEqual(0);
    expect(a.box.y).toBeGreaterThanOrEqual(0);
    expect(a.box.x + a.box.width).toBeLessThanOrEqual(layout.width);
    expect(a.box.y + a.box.height).toBeLessThanOrEqual(layout.height);
    for (let j = i + 1; j < labels.length; j++)
      expect(intersects(a.box, labels[j]!.box), `${a.keys} over ${labels[j]!.keys}`).toBe(false);
    for (const mark of layout.marks) {
      if (a.keys.includes(mark.key)) continue;
      expect(intersects(a.box, markBox(layout, mark.key)), `${a.keys} over ${mark.key}`).toBe(
        false,
      );
    }
  }
  // every point is named exactly once
  expect(labels.flatMap((l) => l.keys).sort()).toEqual(layout.marks.map((m) => m.key).sort());
}

describe('axes', () => {
  it('start at a round value below every point and the goal, and end a little past 100', () => {
    expect(axisDomain([92, 99.7], 90)[0]).toBe(80);
    expect(axisDomain([92, 99.7], 90)[1]).toBeCloseTo(100.8);
    expect(axisDomain([60, 99], 90)[0]).toBe(50);
    expect(axisDomain([4.8, 100], 85)[0]).toBe(0);
    expect(axisDomain([-12, 95], 90)[0]).toBe(-20);
    // the goal alone decides when there are no points
    expect(axisDomain([], 85)[0]).toBe(80);
  });

  it('tick at round steps, never past 100', () => {
    expect(axisTicks([80, 100.8])).toEqual([80, 85, 90, 95, 100]);
    expect(axisTicks([50, 102])).toEqual([50, 60, 70, 80, 90, 100]);
    expect(axisTicks([0, 104])).toEqual([0, 20, 40, 60, 80, 100]);
    expect(axisTicks([-20, 104.8])).toEqual([-20, 0, 20, 40, 60, 80, 100]);
  });
});

describe('layoutPlot', () => {
  it('places points inside the drawing area, 100 % included, and shades the goal region', () => {
    const layout = layoutPlot([point('a', 100, 100), point('b', 95, 50)]);
    const { area } = layout;
    for (const m of layout.marks) {
      expect(m.cx).toBeGreaterThan(area.x);
      expect(m.cx).toBeLessThan(area.x + area.width);
      expect(m.cy).toBeGreaterThan(area.y);
      expect(m.cy).toBeLessThan(area.y + area.height);
    }
    // the goal: right of x = 90 and above y = 85, up to the area's edges
    const x90 = layout.xTicks.find((t) => t.value === 90)!.at;
    expect(layout.goal!.x).toBeCloseTo(x90);
    expect(layout.goal!.x + layout.goal!.width).toBeCloseTo(area.x + area.width);
    expect(layout.goal!.y).toBe(area.y);
    const b = layout.marks.find((m) => m.key === 'b')!;
    expect(b.cy).toBeGreaterThan(layout.goal!.y + layout.goal!.height); // 50 % is below the goal
  });

  it('names points at the same spot with one label, the configured pipeline first', () => {
    const layout = layoutPlot(REAL);
    const cluster = layout.labels.find((l) => l.keys.includes('summarize'))!;
    expect(cluster.keys).toEqual([
      'summarize',
      'retain-summary',
      'condense',
      'extractive',
      'tool-output-trim+summarize',
    ]);
    expect(cluster.lines.filter((l) => l.isDefault).map((l) => l.text)).toEqual([
      'tool-output-trim+summarize',
    ]);
    expect(layout.labels[0]).toBe(cluster);
    expect(layout.labels.find((l) => l.keys.includes('truncate'))!.keys).toEqual(['truncate']);
    expectReadable(layout);
  });

  it('puts labels of points on the right on their left, so they stay inside the plot', () => {
    const layout = layoutPlot([point('near-the-right-edge', 99.5, 50)]);
    const [label] = layout.labels;
    expect(label!.anchor).toBe('end');
    expect(label!.box.x + label!.box.width).toBeLessThan(layout.marks[0]!.cx);
  });

  it('moves a label away from a crowded spot with a leader line back to its point', () => {
    // a 3 × 3 grid of points ~14 px apart: too far to share a label, no room beside the middle ones
    const layout = layoutPlot(
      Array.from({ length: 9 }, (_, i) =>
        point(`strategy-${i}`, 94 + (i % 3) * 0.4, 100 - Math.floor(i / 3) * 0.9),
      ),
    );
    expectReadable(layout);
    expect(layout.labels.some((l) => l.leader)).toBe(true);
    for (const label of layout.labels) {
      const mark = layout.marks.find((m) => m.key === label.keys[0])!;
      const beside = mark.cy >= label.box.y && mark.cy <= label.box.y + label.box.height;
      expect(beside || label.leader !== undefined).toBe(true);
    }
    for (const label of layout.labels.filter((l) => l.leader)) {
      const { x2, y2 } = label.leader!;
      expect(x2 === label.box.x || x2 === label.box.x + label.box.width).toBe(true);
      expect(y2).toBeGreaterThanOrEqual(label.box.y);
      expect(y2).toBeLessThanOrEqual(label.box.y + label.box.height);
    }
  });

  it('keeps every label readable for up to eight candidates anywhere on the plot', () => {
    const names = [
      'summarize',
      'retain-summary',
      'tool-output-trim',
      'importance-window',
      'condense',
      'truncate',
      'extractive',
      'tool-output-trim+summarize',
    ];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            x: fc.double({ min: 0, max: 100, noNaN: true }),
            y: fc.double({ min: 0, max: 100, noNaN: true }),
          }),
          { minLength: 1, maxLength: names.length },
        ),
        (coords) => {
          const layout = layoutPlot(
            coords.map((c, i) => point(names[i]!, c.x, c.y, i === coords.length - 1)),
          );
          expectReadable(layout);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('clusterMarks', () => {
  it('joins marks closer than the distance, transitively', () => {
    const mark = (key: string, cx: number) => ({ key, cx, cy: 0, isDefault: false });
    const groups = clusterMarks([mark('a', 0), mark('b', 8), mark('c', 16), mark('d', 40)], 10);
    expect(groups).toEqual([[0, 1, 2], [3]]);
  });
});
