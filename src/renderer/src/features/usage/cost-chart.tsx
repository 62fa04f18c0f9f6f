import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatUsd } from '../../../../shared/format-cost';
import { useUiStore } from '../../state/ui-store';
import { stackedSeries, type Stack } from './stack-parts';

const HEIGHT = 220;

/** Part colours that read on both themes' backgrounds, in order of the parts' cost. */
export const PART_COLORS = ['#0d9488', '#6366f1', '#f59e0b', '#ec4899', '#0ea5e9', '#94a3b8'];

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/**
 * Cost per period as stacked bars (uPlot; stack-parts.ts turns the parts into bars drawn
 * tallest first). The legend and the table below name the parts; the chart has no legend
 * of its own, and the hovered bar's figures show in its title line.
 */
export function CostChart({
  stack,
  labels,
  partLabels,
  label,
}: {
  stack: Stack;
  /** The rows' keys as the reader says them. */
  labels: string[];
  partLabels: string[];
  label: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const theme = useUiStore((s) => s.theme);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const muted = cssVar('--muted', '#5b6178');
    const line = cssVar('--line', '#e3e6f0');
    const axis = { stroke: muted, grid: { stroke: line, width: 1 }, ticks: { stroke: line } };
    const n = stack.keys.length;
    const bars = uPlot.paths.bars!({ size: [0.7, 48], align: 0 });
    const drawn = stackedSeries(stack);
    const opts: uPlot.Options = {
      width: Math.max(300, el.clientWidth),
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: {
        x: { time: false, range: () => [-0.5, n - 0.5] },
        y: { range: (_u, _min, max) => [0, Math.max(max, 0.01) * 1.1] },
      },
      axes: [
        {
          ...axis,
          // One tick per bar; labels thinned where they would run into each other.
          splits: () => stack.keys.map((_, i) => i),
          values: (_u, splits) => {
            const every = Math.ceil(n / Math.max(1, Math.floor(el.clientWidth / 90)));
            return splits.map((i) => (i % every === 0 ? (labels[i] ?? '') : ''));
          },
        },
        { ...axis, size: 64, values: (_u, vals) => vals.map((v) => formatUsd(v)) },
      ],
      series: [
        {},
        ...drawn.map(({ part }) => ({
          label: partLabels[part],
          fill: PART_COLORS[part % PART_COLORS.length],
          stroke: PART_COLORS[part % PART_COLORS.length],
          width: 0,
          paths: bars,
          points: { show: false },
        })),
      ],
    };
    const data: uPlot.AlignedData = [stack.keys.map((_, i) => i), ...drawn.map((d) => d.values)];
    const chart = new uPlot(opts, data, el);
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(300, el.clientWidth), height: HEIGHT }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [stack, labels, partLabels, theme]);
  return <div ref={host} className="usage-chart-canvas" role="img" aria-label={label} />;
}
