import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ContextUsageSeries } from '../../../../shared/api/task-view-api';
import { useFormat } from '../../i18n/use-format';
import { useT } from '../../i18n/use-t';
import { navigate } from '../../router/use-route';
import { useUiStore } from '../../state/ui-store';
import { taskStrings } from './strings';
import { splitEstimate } from './usage-estimate';

const HEIGHT = 200;
const SEQ_STEPS = [1, 10, 100, 1e3, 1e4, 1e5, 1e6].flatMap((p) => [p, 2 * p, 5 * p]);

interface Mark {
  id: number;
  left: number;
  title: string;
  undone: boolean;
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** The chart's columns: seq, context (anchored estimate), early estimate, provider points, threshold. */
function chartData(series: ContextUsageSeries): uPlot.AlignedData {
  const providerOnly = series.tokens.map((v, i) => (series.sources[i] === 'provider' ? v : null));
  // Before the first provider figure the estimate counts message text only (no system
  // framing, no tool definitions): drawn apart, dashed, so its low start is not read as fact.
  const { early, anchored } = splitEstimate(series);
  const threshold = series.seqs.map(() => series.thresholdTokens);
  return [series.seqs, anchored, early, providerOnly, threshold];
}

/** The uPlot chart of a usage series, with clickable compaction marks over it. */
export function ChartCanvas({ uuid, series }: { uuid: string; series: ContextUsageSeries }) {
  const t = useT(taskStrings);
  const f = useFormat();
  const host = useRef<HTMLDivElement>(null);
  const theme = useUiStore((s) => s.theme);
  const [marks, setMarks] = useState<Mark[]>([]);
  const markTitle = useRef(t);
  markTitle.current = t;
  const language = f.language;
  // The chart is built once per theme and language and fed new data in place: destroying
  // and rebuilding it on every live update shrank the page for a moment, which pulled a
  // reader scrolled down the timeline back to the top.
  const shown = useRef(series);
  shown.current = series;
  const chart = useRef<uPlot | null>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const series = (): ContextUsageSeries => shown.current;
    const accent = cssVar('--accent', '#0f9f8c');
    const provider = cssVar('--running', '#2563eb');
    const danger = cssVar('--failed', '#c2410c');
    const muted = cssVar('--muted', '#5b6178');
    const line = cssVar('--line', '#e3e6f0');
    const axis = { stroke: muted, grid: { stroke: line, width: 1 }, ticks: { stroke: line } };
    const placeMarks = (u: uPlot): void => {
      const tr = markTitle.current;
      setMarks(
        series().compactions.map((c) => ({
          id: c.id,
          undone: c.undone,
          left: u.valToPos(c.seq, 'x') + u.bbox.left / devicePixelRatio,
          title: tr('chartMark', {
            id: c.id,
            strategy: c.strategy,
            before: f.tokens(c.tokensBefore),
            after: f.tokens(c.tokensAfter),
          }),
        })),
      );
    };
    const opts: uPlot.Options = {
      width: Math.max(300, el.clientWidth),
      height: HEIGHT,
      cursor: { drag: { x: true, y: false } },
      scales: {
        x: { time: false },
        y: { range: (_u, _min, max) => [0, Math.max(max, series().thresholdTokens) * 1.08] },
      },
      axes: [
        // Seqs are whole: no "#1.5" ticks on a short task.
        { ...axis, incrs: SEQ_STEPS, values: (_u, vals) => vals.map((v) => `#${f.compact(v)}`) },
        { ...axis, size: 56, values: (_u, vals) => vals.map((v) => f.compact(v)) },
      ],
      series: [
        {
          label: t('seq'),
          value: (_u, v, _s, idx) => {
            if (v === null || v === undefined) return '—';
            const time = idx === null || idx === undefined ? null : series().times[idx];
            return `#${v}${time ? ` · ${f.dateTime(time)}` : ''}`;
          },
        },
        {
          label: t('chartContext'),
          stroke: accent,
          width: 2,
          fill: `${accent}22`,
          points: { show: false },
          value: (_u, v) => (v === null || v === undefined ? '—' : f.tokens(v)),
        },
        {
          label: t('chartEarly'),
          stroke: muted,
          width: 1.5,
          dash: [4, 4],
          points: { show: false },
          value: (_u, v) => (v === null || v === undefined ? '—' : `~${f.tokens(v)}`),
        },
        {
          label: t('chartProvider'),
          stroke: provider,
          paths: () => null,
          points: {
            show: true,
            size: series().seqs.length > 300 ? 3 : 6,
            fill: provider,
            stroke: provider,
          },
          value: (_u, v) => (v === null || v === undefined ? '—' : f.tokens(v)),
        },
        {
          label: t('chartThresholdLabel'),
          stroke: danger,
          width: 1.5,
          dash: [6, 4],
          points: { show: false },
        },
      ],
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            ctx.save();
            for (const c of series().compactions) {
              const x = Math.round(u.valToPos(c.seq, 'x', true));
              ctx.strokeStyle = c.undone ? muted : danger;
              ctx.globalAlpha = c.undone ? 0.4 : 0.75;
              ctx.lineWidth = 1.5 * devicePixelRatio;
              ctx.setLineDash(c.undone ? [3 * devicePixelRatio, 3 * devicePixelRatio] : []);
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x, u.bbox.top + u.bbox.height);
              ctx.stroke();
            }
            ctx.restore();
            placeMarks(u);
          },
        ],
      },
      legend: { show: true, live: true },
    };
    const built = new uPlot(opts, chartData(series()), el);
    chart.current = built;
    const resize = new ResizeObserver(() =>
      built.setSize({ width: Math.max(300, el.clientWidth), height: HEIGHT }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.current = null;
      built.destroy();
    };
    // f and t follow the language; the series is read through `shown` and set below.
  }, [theme, language]);
  useEffect(() => {
    chart.current?.setData(chartData(series));
  }, [series]);

  return (
    <div className="tv-chart">
      <div ref={host} className="tv-chart-canvas" />
      <div className="tv-marks" aria-label={t('compactions')}>
        {marks.map((m) => (
          <button
            key={m.id}
            type="button"
            className={m.undone ? 'tv-mark tv-mark-undone' : 'tv-mark'}
            style={{ left: m.left }}
            title={m.title}
            aria-label={m.title}
            onClick={() => navigate({ page: 'compaction', uuid, id: m.id })}
          >
            {m.id}
          </button>
        ))}
      </div>
    </div>
  );
}
