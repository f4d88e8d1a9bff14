// A phased rollout drawn on a time axis, as an inline SVG: its window from start to end as a band, a "now"
// marker, the share of the channel's clusters offered its edges (a straight ramp, exact: the share offered
// is the share of the window elapsed, frozen when halted), and, from the counts the page kept as it read
// them (CountsHistory), the clusters that took it, updated and failing. Text is formatted here too.
import type { RolloutAnswer, RolloutAnswerCounts, RolloutPhase } from './api.js';

/** The counts kept per rollout: 12 hours of them at one every 15 s. */
export const HISTORY_POINTS = 2_880;

/** One count of a rollout's clusters as the page read it: when the server counted, and what. */
export interface CountsPoint {
  at: number;
  counts: RolloutAnswerCounts;
}

/** The counts the page has read of each rollout, oldest first: one point per count the server made. */
export class CountsHistory {
  private readonly points = new Map<string, CountsPoint[]>();

  /** Keeps the rollout's counts, unless they are the ones kept last (or older: another replica's). */
  add(r: Pick<RolloutAnswer, 'id' | 'counts'>): void {
    if (!r.counts) return;
    const at = Date.parse(r.counts.countedAt);
    if (Number.isNaN(at)) return;
    const points = this.points.get(r.id) ?? [];
    const last = points.at(-1);
    if (last && at <= last.at) return;
    points.push({ at, counts: r.counts });
    if (points.length > HISTORY_POINTS) points.splice(0, points.length - HISTORY_POINTS);
    this.points.set(r.id, points);
  }

  of(id: string): readonly CountsPoint[] {
    return this.points.get(id) ?? [];
  }
}

/** The chart's frame, in SVG units: a lane for the share offered above a lane for the clusters' counts. */
export const CHART = {
  width: 400,
  left: 34,
  right: 12,
  offeredTop: 16,
  clustersTop: 86,
  laneHeight: 50,
  nowY: 146,
  timeY: 160,
  height: 166 + 10,
} as const;

type Point = [number, number];

/** Where everything of a rollout's chart is drawn, in SVG units. */
export interface Timeline {
  /** The window's band, from x0 to x1. */
  window: [number, number];
  now: number;
  /** The share offered: from 0 at the start to the share now (to 1 at the end, then level). */
  offered: Point[];
  /** After a halt or a cancel: the share held from then to now (none once cancelled). */
  held: Point[];
  /** The clusters updated, and those failing or silent, at each count read. */
  updated: Point[];
  failing: Point[];
  /** The top of the clusters' scale. */
  most: number;
}

const round = (n: number): number => Math.round(n * 10) / 10;

/** Lays out a rollout's chart: its time axis spans the window, now and the counts read, with a margin. */
export function timeline(
  r: Pick<RolloutAnswer, 'start' | 'end' | 'share' | 'phase'>,
  points: readonly CountsPoint[],
  now: number,
): Timeline {
  const start = Date.parse(r.start);
  const end = Date.parse(r.end);
  const times = [start, end, now, ...points.map((p) => p.at)];
  let t0 = Math.min(...times);
  let t1 = Math.max(...times);
  if (t1 - t0 < 60_000) t1 = t0 + 60_000;
  const margin = (t1 - t0) * 0.03;
  t0 -= margin;
  t1 += margin;
  const span = CHART.width - CHART.left - CHART.right;
  const x = (t: number): number => round(CHART.left + ((t - t0) / (t1 - t0)) * span);
  const shareY = (s: number): number => round(CHART.offeredTop + CHART.laneHeight * (1 - s));
  const most = Math.max(1, ...points.map((p) => p.counts.took));
  const countY = (n: number): number => round(CHART.clustersTop + CHART.laneHeight * (1 - n / most));

  // The share offered is the share of the window elapsed: it was reached at start + share × duration.
  const reached = start + r.share * (end - start);
  let offered: Point[] = [];
  let held: Point[] = [];
  if (r.phase === 'cancelled') {
    held = [
      [x(start), shareY(0)],
      [x(Math.max(now, start)), shareY(0)],
    ];
  } else if (r.phase !== 'scheduled') {
    offered = [
      [x(start), shareY(0)],
      [x(reached), shareY(r.share)],
    ];
    if (r.phase === 'halted') held = [offered[1]!, [x(Math.max(now, reached)), shareY(r.share)]];
    else if (r.share >= 1 && now > reached) offered.push([x(now), shareY(1)]);
  }
  return {
    window: [x(start), x(end)],
    now: x(now),
    offered,
    held,
    updated: points.map((p): Point => [x(p.at), countY(p.counts.completed)]),
    failing: points.map((p): Point => [x(p.at), countY(p.counts.failing + p.counts.silent)]),
    most,
  };
}

/** A share as a whole percentage, never rounded up to 100% before it is reached. */
export function percent(share: number): string {
  if (share > 0 && share < 0.01) return '<1%';
  return `${Math.floor(share * 100)}%`;
}

/** A time as the page writes times: `2026-06-01 14:00Z`. */
export function when(time: string | number): string {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? String(time) : `${date.toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

/** A time on the chart's axis, shorter: `06-01 14:00`. */
const tick = (ms: number): string => new Date(ms).toISOString().slice(5, 16).replace('T', ' ');

export type Color = 'blue' | 'orange' | 'green' | 'grey' | 'red';

export const PHASES: Record<RolloutPhase, Color | undefined> = {
  scheduled: undefined,
  rolling: 'blue',
  watching: 'blue',
  completed: 'green',
  halted: 'red',
  cancelled: 'grey',
};

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element: attributes set one by one, text appended as text. */
function svg(tag: string, attrs: Record<string, string | number>, ...children: Array<Node | string>): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  el.append(...children);
  return el;
}

const pointsOf = (line: Point[]): string => line.map(([px, py]) => `${px},${py}`).join(' ');

/** A line, with a dot at its newest point (a single count is a dot). */
function line(points: Point[], cls: string): SVGElement[] {
  if (points.length === 0) return [];
  const [lx, ly] = points.at(-1)!;
  return [
    svg('polyline', { class: cls, points: pointsOf(points), fill: 'none' }),
    svg('circle', { class: `${cls} cy-dot-end`, cx: lx, cy: ly, r: 2.5 }),
  ];
}

/** The rollout's chart: window, now, share offered, and the clusters updated and failing. */
export function rolloutChart(r: RolloutAnswer, points: readonly CountsPoint[], now: number): SVGElement {
  const t = timeline(r, points, now);
  const { left, width, right, offeredTop, clustersTop, laneHeight, nowY, timeY, height } = CHART;
  const text = (x: number, y: number, value: string, anchor = 'start', cls = 'cy-chart-text'): SVGElement =>
    svg('text', { x, y, 'text-anchor': anchor, class: cls }, value);
  const [x0, x1] = t.window;
  const counts = r.counts;
  const summary =
    `${r.id}: window ${when(r.start)} to ${when(r.end)}, ${r.phase}, ${percent(r.share)} of the clusters offered` +
    (counts ? `; ${counts.took} took it, ${counts.completed} updated, ${counts.failing + counts.silent} failing` : '');
  // The end's time goes below the start's when the band is too narrow for both on one line.
  const endRow = x1 - x0 < 70 ? timeY + 11 : timeY;
  const parts: SVGElement[] = [
    svg('title', {}, summary),
    svg('rect', {
      class: `cy-window cy-window-${r.phase}`,
      x: x0,
      y: offeredTop,
      width: Math.max(x1 - x0, 2),
      height: laneHeight,
    }),
  ];
  for (const y of [offeredTop + laneHeight, clustersTop + laneHeight])
    parts.push(svg('line', { class: 'cy-axis', x1: left, x2: width - right, y1: y, y2: y }));
  parts.push(
    text(left - 4, offeredTop + 8, '100%', 'end'),
    text(left - 4, offeredTop + laneHeight, '0', 'end'),
    text(left + 2, offeredTop - 6, "share of the channel's clusters offered"),
    text(left - 4, clustersTop + 8, String(t.most), 'end'),
    text(left - 4, clustersTop + laneHeight, '0', 'end'),
    text(left + 2, clustersTop - 6, 'clusters that took it'),
    ...line(t.offered, 'cy-offered'),
  );
  if (t.held.length)
    parts.push(svg('polyline', { class: `cy-held cy-held-${r.phase}`, points: pointsOf(t.held), fill: 'none' }));
  const reached = t.offered.at(-1);
  if (reached)
    parts.push(
      text(
        reached[0] > width - 80 ? reached[0] - 4 : reached[0] + 4,
        Math.max(reached[1] - 4, offeredTop + 8),
        `${percent(r.share)} offered`,
        reached[0] > width - 80 ? 'end' : 'start',
        'cy-chart-text cy-offered-text',
      ),
    );
  parts.push(
    ...line(t.updated, 'cy-updated'),
    ...line(t.failing, 'cy-failing'),
    svg('line', { class: 'cy-now', x1: t.now, x2: t.now, y1: offeredTop - 2, y2: clustersTop + laneHeight }),
    text(t.now, nowY, 'now', t.now < left + 10 ? 'start' : t.now > width - right - 10 ? 'end' : 'middle'),
    text(x0, timeY, tick(Date.parse(r.start)), x0 < left + 30 ? 'start' : 'middle'),
    text(x1, endRow, tick(Date.parse(r.end)), x1 > width - right - 30 ? 'end' : 'middle'),
  );
  return svg(
    'svg',
    {
      class: 'cy-rollout-chart',
      viewBox: `0 0 ${width} ${endRow === timeY ? height : height + 11}`,
      role: 'img',
      'aria-label': summary,
    },
    ...parts,
  );
}
