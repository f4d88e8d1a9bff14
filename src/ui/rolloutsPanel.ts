// The Rollouts tab: the selected channel's phased rollouts (GET /api/v1/rollouts, public, newest first),
// each drawn as a timeline in an inline SVG: its window from start to end as a band, a "now" marker, the
// share of the channel's clusters offered its updates (a straight ramp, exact: the share offered is the
// share of the window elapsed, frozen when halted), and the clusters that took them, updated and failing.
// The API gives only the current counts, so the panel keeps each count it reads (on show, then every 15 s
// while the tab is open) in memory: those two lines start when the page was opened.
import { api, type Rollout, type RolloutCounts, type RolloutPhase } from './api.js';
import { alert, byId, h, label, link, terms } from './dom.js';

/** What the panel shows: the channel the page has selected. */
export interface RolloutsScope {
  channel: string;
}

/** Rollouts asked for a page at a time, and the pages read at most to find the channel's. */
export const ROLLOUTS_PAGE_SIZE = 100;
export const ROLLOUTS_MAX_PAGES = 3;
/** How often the open tab reads the rollouts again. */
export const ROLLOUTS_REFRESH_MS = 15_000;
/** The channel's rollouts drawn at most, newest first. */
export const ROLLOUTS_SHOWN = 20;
/** The counts kept per rollout: 12 hours of them at one every 15 s. */
export const HISTORY_POINTS = 2_880;

/** One count of a rollout's clusters as the page read it: when the server counted, and what. */
export interface CountsPoint {
  at: number;
  counts: RolloutCounts;
}

/** The counts the page has read of each rollout, oldest first: one point per count the server made. */
export class CountsHistory {
  private readonly points = new Map<string, CountsPoint[]>();

  /** Keeps the rollout's counts, unless they are the ones kept last (or older: another replica's). */
  add(r: Pick<Rollout, 'id' | 'counts'>): void {
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
  r: Pick<Rollout, 'start' | 'end' | 'share' | 'phase'>,
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

type Color = 'blue' | 'orange' | 'green' | 'grey' | 'red';

const PHASES: Record<RolloutPhase, Color | undefined> = {
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
export function rolloutChart(r: Rollout, points: readonly CountsPoint[], now: number): SVGElement {
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

const swatch = (cls: string, text: string): HTMLElement => h('li', {}, h('span', { class: `cy-swatch ${cls}` }), text);

/** What became of the clusters that took it: numbers, failing in red. */
function countsLine(c: RolloutCounts): HTMLElement {
  const failed = c.failing + c.silent;
  const item = (key: string, n: number, text: string, color?: Color): HTMLElement =>
    h('span', { class: 'cy-count', 'data-count': key }, color && n > 0 ? label(`${n} ${text}`, color) : `${n} ${text}`);
  return h(
    'span',
    { class: 'cy-counts' },
    item('took', c.took, 'took it'),
    ' · ',
    item('completed', c.completed, 'updated', 'green'),
    ' · ',
    item('progressing', c.progressing, 'updating'),
    ' · ',
    item('failing', failed, `failing (${c.silent} silent)`, 'red'),
  );
}

function haltBounds(r: Rollout): string {
  const { failures, fraction } = r.haltAfter;
  const parts = [
    failures !== null && `${failures} cluster${failures === 1 ? '' : 's'} fail${failures === 1 ? 's' : ''}`,
    fraction !== null && `${Math.round(fraction * 1000) / 10}% of those that took it fail`,
  ].filter((p): p is string => p !== false);
  return `when ${parts.join(', or ')}`;
}

/** What the phase means for the channel's clusters now, in a sentence (or an alert when halted). */
function standing(r: Rollout): HTMLElement {
  switch (r.phase) {
    case 'scheduled':
      return h('p', { class: 'cy-hint' }, `Starts ${when(r.start)}: no cluster is offered these updates yet.`);
    case 'rolling':
      return h(
        'p',
        { class: 'cy-hint' },
        `${percent(r.share)} of the channel's clusters are offered these updates; every one of them by ${when(r.end)}.`,
      );
    case 'watching':
      return h(
        'p',
        { class: 'cy-hint' },
        `Every cluster is offered these updates; the clusters that took them are watched for 3 hours after the window.`,
      );
    case 'completed':
      return h('p', { class: 'cy-hint' }, 'Every cluster is offered these updates.');
    case 'halted': {
      const c = r.haltCounts;
      const why = c
        ? `The service halted it: ${c.failing + c.silent} of the ${c.took} clusters that took it failed (${c.failing} failing, ${c.silent} silent).`
        : 'An administrator halted it.';
      return h(
        'div',
        { class: 'cy-rollout-halt' },
        alert(
          'danger',
          `Halted${r.stateAt ? ` at ${when(r.stateAt)}` : ''}`,
          h('p', {}, why),
          r.reason ? h('p', {}, 'Reason: ', h('q', { class: 'cy-rollout-reason' }, r.reason)) : null,
          h(
            'p',
            {},
            `${percent(r.share)} of the clusters had been offered these updates. Every cluster is now shown them ` +
              `as conditional updates with the risk PhasedRolloutHalted, until the rollout is resumed ` +
              `(POST /api/v1/rollouts/${r.id}/resume).`,
          ),
        ),
      );
    }
    case 'cancelled':
      return h(
        'p',
        { class: 'cy-hint cy-rollout-cancel' },
        `Cancelled${r.stateAt ? ` at ${when(r.stateAt)}` : ''}${r.reason ? `: ${r.reason}` : ''}. ` +
          `These updates are served to no cluster until another rollout of ${r.to} is declared in ${r.channel}.`,
      );
  }
}

/** One rollout: its target and phase, where it stands, its chart and its numbers. */
export function rolloutCard(r: Rollout, points: readonly CountsPoint[], now: number): HTMLElement {
  return h(
    'article',
    { class: 'cy-rollout', id: `rollout-${r.id}`, 'data-rollout': r.id, 'data-phase': r.phase },
    h(
      'div',
      { class: 'cy-rollout-head' },
      h('h4', { class: 'cy-rollout-title' }, `Updates to ${r.to}`),
      h('span', { class: 'cy-rollout-phase' }, label(r.phase, PHASES[r.phase])),
    ),
    h(
      'p',
      { class: 'cy-hint' },
      h('span', { class: 'cy-mono cy-rollout-id' }, r.id),
      r.from === null ? ' · from every version' : ` · from versions matching ${r.from}`,
    ),
    standing(r),
    rolloutChart(r, points, now),
    terms([
      ['Window', `${when(r.start)} → ${when(r.end)} (${r.duration})`],
      [
        'Offered to',
        `${percent(r.share)} of the channel's clusters` +
          (r.canaries.length ? `, ${r.canaries.length} canary cluster${r.canaries.length === 1 ? '' : 's'} first` : ''),
      ],
      [
        'Clusters',
        r.counts
          ? [countsLine(r.counts), h('span', { class: 'cy-hint' }, ` counted ${when(r.counts.countedAt)}`)]
          : h('span', { class: 'cy-hint' }, 'not counted yet'),
      ],
      ['Halts itself', haltBounds(r)],
      ['Declared', `${when(r.createdAt)} by ${r.createdBy}`],
      ['Link while halted', link(r.url)],
    ]),
  );
}

/** The empty channel: what a rollout is for, and how to declare one. */
function howToDeclare(channel: string, more: boolean): HTMLElement {
  const body = JSON.stringify(
    { channel, to: '<a release of the channel>', start: new Date().toISOString(), duration: 'PT6H' },
    null,
    2,
  );
  return h(
    'div',
    { id: 'rollouts-empty' },
    h(
      'p',
      {},
      more
        ? `No phased rollout of ${channel} among the ${ROLLOUTS_PAGE_SIZE * ROLLOUTS_MAX_PAGES} declared last.`
        : `No phased rollout in ${channel} yet.`,
    ),
    h(
      'p',
      { class: 'cy-hint' },
      'Declare one with POST /api/v1/rollouts and a token with the scope rollouts:write, for example:',
    ),
    h(
      'pre',
      { class: 'cy-mono cy-example' },
      `curl -X POST ${location.origin}/api/v1/rollouts \\\n` +
        `  -H "Authorization: Bearer $TOKEN" \\\n` +
        `  -H 'Content-Type: application/json' \\\n` +
        `  -d '${body}'`,
    ),
    h(
      'p',
      { class: 'cy-hint' },
      'Optional: from (a regular expression over the versions updated from), canaries (cluster ids offered ' +
        'the updates first) and haltAfter (how many failures halt it). Every field is in ',
      h('a', { href: '/docs' }, 'the API (Swagger UI)'),
      '.',
    ),
  );
}

export class RolloutsPanel {
  private asked = 0;
  /** The counts read of each rollout while the page is open. */
  readonly history = new CountsHistory();

  constructor(private readonly scope: () => RolloutsScope) {
    byId('rollouts-refresh').addEventListener('click', () => void this.show());
    setInterval(() => {
      if (this.open) void this.show();
    }, ROLLOUTS_REFRESH_MS);
    document.addEventListener('visibilitychange', () => {
      if (this.open) void this.show();
    });
  }

  /** Whether the tab is shown, in a browser tab in view. */
  private get open(): boolean {
    return document.visibilityState === 'visible' && !byId('panel-rollouts').hidden;
  }

  /** Reads the rollouts and draws the selected channel's (on show, on a change of channel, and every 15 s). */
  async show(): Promise<void> {
    const result = byId('rollouts-result');
    const { channel } = this.scope();
    if (!channel) {
      result.replaceChildren(h('p', { class: 'cy-hint' }, 'Choose a channel to see its rollouts.'));
      return;
    }
    const ticket = ++this.asked;
    try {
      const { rollouts, more } = await rolloutsOf(channel);
      if (ticket !== this.asked) return;
      for (const r of rollouts) this.history.add(r);
      const now = Date.now();
      byId('rollouts-read').textContent =
        `Read at ${new Date(now).toISOString().slice(11, 19)}Z; again every ${ROLLOUTS_REFRESH_MS / 1000} s while this tab is open.`;
      if (rollouts.length === 0) {
        result.replaceChildren(h('h3', { class: 'cy-subhead' }, `Rollouts in ${channel}`), howToDeclare(channel, more));
        return;
      }
      const shown = rollouts.slice(0, ROLLOUTS_SHOWN);
      result.replaceChildren(
        h('h3', { class: 'cy-subhead' }, `Rollouts in ${channel}, newest first`),
        h(
          'ul',
          { class: 'cy-legend cy-rollout-legend', 'aria-label': 'Legend of the charts' },
          swatch('cy-sw-window', 'window'),
          swatch('cy-sw-offered', 'share of clusters offered'),
          swatch('cy-sw-updated', 'clusters updated'),
          swatch('cy-sw-failing', 'clusters failing'),
          swatch('cy-sw-now', 'now'),
        ),
        h(
          'p',
          { class: 'cy-hint', id: 'rollouts-lines' },
          'The updated and failing lines start when this page was opened: the server gives only the current counts, and the page keeps those it reads.',
        ),
        h(
          'div',
          { id: 'rollouts-list' },
          shown.map((r) => rolloutCard(r, this.history.of(r.id), now)),
          rollouts.length > shown.length || more
            ? h(
                'p',
                { class: 'cy-hint' },
                `The ${shown.length} newest are shown; older ones are in GET /api/v1/rollouts (a page at a time).`,
              )
            : null,
        ),
      );
    } catch (err) {
      if (ticket !== this.asked) return;
      result.replaceChildren(alert('danger', 'The rollouts could not be read', (err as Error).message));
    }
  }
}

/**
 * The channel's rollouts, newest first: pages of the list read until one holds some of them (at most a
 * few pages); `more` when pages were left unread.
 */
async function rolloutsOf(channel: string): Promise<{ rollouts: Rollout[]; more: boolean }> {
  const found: Rollout[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < ROLLOUTS_MAX_PAGES; page++) {
    const answer = await api.rollouts.list({ cursor, limit: String(ROLLOUTS_PAGE_SIZE) });
    found.push(...answer.rollouts.filter((r) => r.channel === channel));
    cursor = answer.nextCursor;
    if (cursor === undefined || found.length > 0) break;
  }
  return { rollouts: found, more: cursor !== undefined };
}
