/**
 * The geometry of the "Compare strategies" plot: facts kept (y) against tokens saved on the
 * span (x), both in percent. Pure, so the scaling and the label placement are tested
 * without a browser; strategy-compare.tsx draws what this returns.
 *
 * Strategies that do the same thing land on the same spot (summarize, the extractive digest
 * and a pipeline ending in summarize often save 92–93 % and keep everything), so points
 * closer than a marker are drawn as one cluster with one label listing every name, and the
 * labels are placed greedily where they touch neither another label nor a marker, with a
 * leader line when one had to move away from its point.
 */

export interface PlotInput {
  key: string;
  label: string;
  /** Tokens saved on the span, percent (may be below 0 when a step grew the span). */
  x: number;
  /** Facts kept, percent. */
  y: number;
  isDefault: boolean;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlotMark {
  key: string;
  cx: number;
  cy: number;
  isDefault: boolean;
}

export interface PlotLabel {
  /** The points it names, in input order. */
  keys: string[];
  lines: { key: string; text: string; isDefault: boolean }[];
  box: Box;
  /** Text starts at box.x (points on the left) or ends at box.x + width (on the right). */
  anchor: 'start' | 'end';
  /** From the marker to the label, when the label sits away from its point. */
  leader?: { x1: number; y1: number; x2: number; y2: number };
}

export interface PlotLayout {
  width: number;
  height: number;
  /** The drawing area inside the axes. */
  area: Box;
  xDomain: [number, number];
  yDomain: [number, number];
  xTicks: { value: number; at: number }[];
  yTicks: { value: number; at: number }[];
  /** The goal region (x ≥ goal.x, y ≥ goal.y), clipped to the area; null when outside it. */
  goal: Box | null;
  marks: PlotMark[];
  labels: PlotLabel[];
}

export interface PlotOptions {
  width?: number;
  height?: number;
  goal?: { x: number; y: number };
  /** Label font metrics, in the SVG's units: a monospace font, so width = chars × charWidth. */
  charWidth?: number;
  lineHeight?: number;
  markRadius?: number;
}

export const GOAL = { x: 90, y: 85 } as const;

const MARGIN = { left: 54, right: 14, top: 12, bottom: 46 };

/**
 * The shown range of one axis: from a round value below every point and the goal (80, 50 or
 * 0 — or lower when a point is) to a little above 100, so points at 100 % are not cut.
 */
export function axisDomain(values: readonly number[], goal: number): [number, number] {
  const low = Math.min(goal, ...values) - 2;
  const lo = low >= 80 ? 80 : low >= 50 ? 50 : low >= 0 ? 0 : Math.floor(low / 10) * 10;
  return [lo, 100 + (100 - lo) * 0.04];
}

/** Round tick values within the domain, never past 100. */
export function axisTicks([lo, hi]: [number, number]): number[] {
  const span = Math.min(hi, 100) - lo;
  const step = span <= 25 ? 5 : span <= 60 ? 10 : 20;
  const ticks: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= Math.min(hi, 100) + 1e-9; v += step) ticks.push(v);
  return ticks;
}

export function intersects(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

export function layoutPlot(points: readonly PlotInput[], options: PlotOptions = {}): PlotLayout {
  const width = options.width ?? 720;
  const height = options.height ?? 380;
  const goal = options.goal ?? GOAL;
  const charWidth = options.charWidth ?? 6.7;
  const lineHeight = options.lineHeight ?? 14;
  const r = options.markRadius ?? 5;
  const area: Box = {
    x: MARGIN.left,
    y: MARGIN.top,
    width: width - MARGIN.left - MARGIN.right,
    height: height - MARGIN.top - MARGIN.bottom,
  };
  const xDomain = axisDomain(
    points.map((p) => p.x),
    goal.x,
  );
  const yDomain = axisDomain(
    points.map((p) => p.y),
    goal.y,
  );
  const sx = (v: number): number =>
    area.x + ((v - xDomain[0]) / (xDomain[1] - xDomain[0])) * area.width;
  const sy = (v: number): number =>
    area.y + area.height - ((v - yDomain[0]) / (yDomain[1] - yDomain[0])) * area.height;

  const marks: PlotMark[] = points.map((p) => ({
    key: p.key,
    cx: sx(clamp(p.x, xDomain)),
    cy: sy(clamp(p.y, yDomain)),
    isDefault: p.isDefault,
  }));
  const goalX = sx(goal.x);
  const goalY = sy(Math.min(goal.y, yDomain[1]));
  const goalBox =
    goal.x < xDomain[1] && goal.y < yDomain[1]
      ? {
          x: Math.max(goalX, area.x),
          y: area.y,
          width: area.x + area.width - Math.max(goalX, area.x),
          height: Math.min(goalY, area.y + area.height) - area.y,
        }
      : null;

  return {
    width,
    height,
    area,
    xDomain,
    yDomain,
    xTicks: axisTicks(xDomain).map((value) => ({ value, at: sx(value) })),
    yTicks: axisTicks(yDomain).map((value) => ({ value, at: sy(value) })),
    goal: goalBox,
    marks,
    labels: placeLabels(points, marks, area, { charWidth, lineHeight, r, width, height }),
  };
}

function clamp(v: number, [lo, hi]: [number, number]): number {
  return Math.min(hi, Math.max(lo, v));
}

/** Points closer than two markers, joined transitively (each index → its cluster's indexes). */
export function clusterMarks(marks: readonly PlotMark[], distance: number): number[][] {
  const parent = marks.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < marks.length; i++) {
    for (let j = i + 1; j < marks.length; j++) {
      const a = marks[i]!;
      const b = marks[j]!;
      if (Math.hypot(a.cx - b.cx, a.cy - b.cy) < distance) parent[find(j)] = find(i);
    }
  }
  const groups = new Map<number, number[]>();
  marks.forEach((_, i) => {
    const root = find(i);
    groups.set(root, [...(groups.get(root) ?? []), i]);
  });
  return [...groups.values()];
}

function placeLabels(
  points: readonly PlotInput[],
  marks: readonly PlotMark[],
  area: Box,
  m: { charWidth: number; lineHeight: number; r: number; width: number; height: number },
): PlotLabel[] {
  const clusters = clusterMarks(marks, m.r * 2 + 2);
  // The configured pipeline's cluster is placed first (it gets the spot beside its point),
  // then the biggest clusters, then left to right.
  clusters.sort((a, b) => {
    const da = a.some((i) => marks[i]!.isDefault) ? 1 : 0;
    const db = b.some((i) => marks[i]!.isDefault) ? 1 : 0;
    if (da !== db) return db - da;
    if (a.length !== b.length) return b.length - a.length;
    return marks[a[0]!]!.cx - marks[b[0]!]!.cx;
  });
  const obstacles: Box[] = marks.map((k) => ({
    x: k.cx - m.r - 2,
    y: k.cy - m.r - 2,
    width: 2 * m.r + 4,
    height: 2 * m.r + 4,
  }));
  // Labels may use the whole SVG but the axis' tick labels.
  const bounds: Box = {
    x: area.x + 2,
    y: 2,
    width: m.width - area.x - 4,
    height: area.y + area.height - 4,
  };
  const placed: Box[] = [];
  const labels: PlotLabel[] = [];
  for (const cluster of clusters) {
    const members = [...cluster].sort((a, b) => a - b);
    const own = members.map((i) => marks[i]!);
    const left = Math.min(...own.map((k) => k.cx)) - m.r;
    const right = Math.max(...own.map((k) => k.cx)) + m.r;
    const top = Math.min(...own.map((k) => k.cy));
    const bottom = Math.max(...own.map((k) => k.cy));
    const cy = (top + bottom) / 2;
    const cx = (left + right) / 2;
    const lines = members.map((i) => ({
      key: points[i]!.key,
      text: points[i]!.label,
      isDefault: points[i]!.isDefault,
    }));
    const w = Math.max(...lines.map((l) => l.text.length)) * m.charWidth + 4;
    const h = lines.length * m.lineHeight;
    const preferRight = cx < area.x + area.width / 2;
    const sides: ('right' | 'left')[] = preferRight ? ['right', 'left'] : ['left', 'right'];
    const others = obstacles.filter((_, i) => !members.includes(i));
    let chosen: { box: Box; side: 'right' | 'left' } | undefined;
    const step = 3;
    const reach = m.height;
    search: for (let d = 0; d <= reach; d += step) {
      for (const dy of d === 0 ? [0] : [d, -d]) {
        for (const side of sides) {
          const box: Box = {
            x: side === 'right' ? right + 6 : left - 6 - w,
            y: cy - h / 2 + dy,
            width: w,
            height: h,
          };
          if (!inside(box, bounds)) continue;
          if (placed.some((p) => intersects(p, box)) || others.some((o) => intersects(o, box)))
            continue;
          chosen = { box, side };
          break search;
        }
      }
    }
    // Nowhere free (a very crowded plot): beside the point, inside the bounds; the table lists them all.
    chosen ??= {
      side: sides[0]!,
      box: fitInside(
        { x: sides[0] === 'right' ? right + 6 : left - 6 - w, y: cy - h / 2, width: w, height: h },
        bounds,
      ),
    };
    placed.push(chosen.box);
    const { box, side } = chosen;
    const label: PlotLabel = {
      keys: lines.map((l) => l.key),
      lines,
      box,
      anchor: side === 'right' ? 'start' : 'end',
    };
    if (cy < box.y || cy > box.y + box.height) {
      const edgeX = side === 'right' ? box.x : box.x + box.width;
      const edgeY = cy < box.y ? box.y + 2 : box.y + box.height - 2;
      const fromX = side === 'right' ? right : left;
      label.leader = { x1: fromX, y1: cy, x2: edgeX, y2: edgeY };
    }
    labels.push(label);
  }
  return labels;
}

function inside(box: Box, bounds: Box): boolean {
  return (
    box.x >= bounds.x &&
    box.y >= bounds.y &&
    box.x + box.width <= bounds.x + bounds.width &&
    box.y + box.height <= bounds.y + bounds.height
  );
}

function fitInside(box: Box, bounds: Box): Box {
  return {
    ...box,
    x: Math.min(Math.max(box.x, bounds.x), bounds.x + bounds.width - box.width),
    y: Math.min(Math.max(box.y, bounds.y), bounds.y + bounds.height - box.height),
  };
}
