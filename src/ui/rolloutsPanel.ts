// The Rollouts tab: the selected channel's phased rollouts (GET /api/v1/rollouts, public, newest first),
// each a card with where it stands and its timeline (rolloutChart.ts). The API gives only the current
// counts, so the panel keeps each count it reads (on show, then every 15 s while the tab is open) in
// memory: the lines of the clusters that took it start when the page was opened.
import { api, type RolloutAnswer, type RolloutAnswerCounts } from './api.js';
import { alert, byId, h, label, link, terms } from './dom.js';
import { CountsHistory, PHASES, percent, rolloutChart, when, type Color, type CountsPoint } from './rolloutChart.js';

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
const swatch = (cls: string, text: string): HTMLElement => h('li', {}, h('span', { class: `cy-swatch ${cls}` }), text);

/** What became of the clusters that took it: numbers, failing in red. */
function countsLine(c: RolloutAnswerCounts): HTMLElement {
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

function haltBounds(r: RolloutAnswer): string {
  const { failures, fraction } = r.haltAfter;
  const parts = [
    failures !== null && `${failures} cluster${failures === 1 ? '' : 's'} fail${failures === 1 ? 's' : ''}`,
    fraction !== null && `${Math.round(fraction * 1000) / 10}% of those that took it fail`,
  ].filter((p): p is string => p !== false);
  return `when ${parts.join(', or ')}`;
}

/** What the phase means for the channel's clusters now, in a sentence (or an alert when halted). */
function standing(r: RolloutAnswer): HTMLElement {
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
export function rolloutCard(r: RolloutAnswer, points: readonly CountsPoint[], now: number): HTMLElement {
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
          (r.canaries ? `, ${r.canaries} canary cluster${r.canaries === 1 ? '' : 's'} first` : ''),
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
async function rolloutsOf(channel: string): Promise<{ rollouts: RolloutAnswer[]; more: boolean }> {
  const found: RolloutAnswer[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < ROLLOUTS_MAX_PAGES; page++) {
    const answer = await api.rollouts.list({ cursor, limit: String(ROLLOUTS_PAGE_SIZE) });
    found.push(...answer.rollouts.filter((r) => r.channel === channel));
    cursor = answer.nextCursor;
    if (cursor === undefined || found.length > 0) break;
  }
  return { rollouts: found, more: cursor !== undefined };
}
