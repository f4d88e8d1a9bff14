// The Fleet tab: the clusters that poll this server, from the fleet API (a token with the scope
// fleet:read, typed once and kept for the browser tab's session only). The whole fleet in numbers, the
// selected channel's clusters by version, the exposure to each risk, the updates clusters took on the
// arch and what became of them, and the channel's clusters a page at a time, each with the updates it
// is shown now and what it reported itself.
import {
  api,
  ApiProblem,
  type FleetClusters,
  type FleetExposure,
  type FleetSummary,
  type FleetUpdates,
} from './api.js';
import { versionOrder } from './layout.js';
import { pageNav } from './pageNav.js';
import { alert, byId, h, label, terms } from './dom.js';

const TOKEN_KEY = 'cincy.fleet.token';

/** What the panel shows: the channel and arch the page has selected. */
export interface FleetScope {
  channel: string;
  arch: string;
}

export class FleetPanel {
  private asked = 0;
  /** The cursors of the clusters pages shown so far: the first page has none. */
  private cursors: Array<string | undefined> = [undefined];
  /** The channel and arch the cursors are of: another one starts again at the first page. */
  private paged = '';

  constructor(private readonly scope: () => FleetScope) {
    const form = byId<HTMLFormElement>('fleet-form');
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) (form.elements.namedItem('token') as HTMLInputElement).value = token;
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const given = String(new FormData(form).get('token') ?? '').trim();
      if (given) sessionStorage.setItem(TOKEN_KEY, given);
      this.cursors = [undefined];
      void this.show();
    });
  }

  private get token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  private get strandedOnly(): boolean {
    return (byId<HTMLFormElement>('fleet-form').elements.namedItem('stranded') as HTMLInputElement).checked;
  }

  /** Shows the fleet for the selected channel (called again when the channel or arch changes). */
  async show(): Promise<void> {
    const result = byId('fleet-result');
    const token = this.token;
    if (!token) {
      result.replaceChildren(h('p', { class: 'cy-hint' }, 'A token with the scope fleet:read shows the fleet.'));
      return;
    }
    const ticket = ++this.asked;
    const { channel, arch } = this.scope();
    if (this.paged !== `${channel} ${arch}`) {
      this.paged = `${channel} ${arch}`;
      this.cursors = [undefined];
    }
    try {
      const [summary, exposure, updates, clusters] = await Promise.all([
        api.fleet.summary(token),
        api.fleet.exposure(token, channel, arch),
        api.fleet.updates(token),
        this.clusters(token, this.cursors.at(-1)),
      ]);
      if (ticket !== this.asked) return;
      result.replaceChildren(
        wholeFleet(summary),
        h('h3', { class: 'cy-subhead' }, `${channel} (${arch}) by version`),
        byVersion(summary, channel, arch),
        h('h3', { class: 'cy-subhead' }, `Exposure to risks in ${channel}`),
        exposureIn(exposure),
        h('h3', { class: 'cy-subhead' }, `Updates taken on ${arch}, last 30 days`),
        updatesOn(updates, arch),
        h('h3', { class: 'cy-subhead' }, `Clusters in ${channel}${this.strandedOnly ? ', stranded only' : ''}`),
        this.clusterList(clusters),
      );
    } catch (err) {
      if (ticket !== this.asked) return;
      const refused = err instanceof ApiProblem && (err.status === 401 || err.status === 403);
      result.replaceChildren(
        alert('danger', refused ? 'The token was refused' : 'The fleet could not be read', (err as Error).message),
      );
    }
  }

  private clusters(token: string, cursor: string | undefined): Promise<FleetClusters> {
    const { channel, arch } = this.scope();
    return api.fleet.clusters(token, {
      channel,
      arch,
      ...(this.strandedOnly && { stranded: 'true' }),
      ...(cursor && { cursor }),
    });
  }

  private clusterList(page: FleetClusters): HTMLElement {
    const rows = page.clusters.map((c) => [
      c.id,
      c.version ?? '-',
      c.lastSeen.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
      c.stranded ?? `${c.recommended.length} recommended, ${c.conditional.length} conditional`,
      reportedCell(c.reported),
    ]);
    const nav = pageNav({
      id: 'fleet',
      cursors: this.cursors,
      next: page.nextCursor,
      labels: { previous: 'Previous page', next: 'Next page' },
      show: () => this.show(),
    });
    if (rows.length === 0) return h('div', {}, h('p', { class: 'cy-hint' }, 'No cluster.'), nav);
    const header = ['Cluster', 'Version (polls)', 'Last seen', 'Updates shown', 'Reported by the cluster'];
    return h('div', {}, grid(header, rows, 'fleet-clusters'), nav);
  }
}

function wholeFleet(s: FleetSummary): HTMLElement {
  return h(
    'div',
    { id: 'fleet-summary' },
    terms([
      ['Clusters', String(s.clusters)],
      ['Stale', `${s.stale} (silent over ${s.staleAfter})`],
      ['Stranded', String(s.stranded)],
      ['Behind', `${s.behind} (shown a recommended update)`],
    ]),
    s.recording ? null : h('p', { class: 'cy-hint' }, 'This server records no polls (--no-fleet).'),
  );
}

function byVersion(s: FleetSummary, channel: string, arch: string): HTMLElement {
  const groups = s.groups.filter((g) => g.channel === channel && g.arch === arch);
  if (groups.length === 0) return h('p', { class: 'cy-hint' }, 'No cluster polls this channel.');
  return grid(
    ['Version', 'Clusters', 'Stale', 'Standing'],
    groups.map((g) => [
      g.version ?? '(none given)',
      String(g.clusters),
      String(g.stale),
      g.stranded
        ? label(`stranded: ${g.stranded}`, 'red')
        : g.behind
          ? label('behind', 'orange')
          : label('current', 'green'),
    ]),
    'fleet-versions',
  );
}

/** For each risk, the clusters of the channel and arch (those the answer is for) shown it on a conditional update now. */
function exposureIn(exposure: FleetExposure): HTMLElement {
  const rows = exposure.risks.filter((r) => r.clusters > 0).sort((a, b) => b.clusters - a.clusters);
  if (rows.length === 0) return h('p', { class: 'cy-hint' }, 'No cluster here is shown a conditional update now.');
  return grid(
    ['Risk', 'Clusters'],
    rows.map((r) => [r.risk, String(r.clusters)]),
    'fleet-exposure',
  );
}

/** What a cluster reported itself, told apart from what its polls claim: its version and its newest update. */
function reportedCell(r: FleetClusters['clusters'][number]['reported']): string | HTMLElement {
  if (!r) return h('span', { class: 'cy-hint' }, 'polls only');
  const u = r.update;
  if (!u) return r.version ?? '-';
  const color = u.state === 'completed' ? 'green' : u.state === 'progressing' ? 'blue' : 'red';
  return h(
    'span',
    {},
    `${r.version ?? '-'} `,
    label(`${u.from} → ${u.to}: ${u.state}${u.reason ? ` (${u.reason})` : ''}`, color),
  );
}

/** The updates clusters on `arch` were seen to start, newest target first, with what became of them. */
function updatesOn(updates: FleetUpdates, arch: string): HTMLElement {
  const rows = updates.updates
    .filter((u) => u.arch === arch)
    .sort((a, b) => versionOrder(b.to, a.to) || versionOrder(b.from, a.from))
    .slice(0, 20);
  if (rows.length === 0) return h('p', { class: 'cy-hint' }, 'No update seen on this arch.');
  const minutes = (s: number | undefined): string => (s === undefined ? '-' : `${Math.round(s / 60)} min`);
  return grid(
    ['From', 'To', 'Started', 'Completed', 'Failing', 'Silent', 'Median time'],
    rows.map((u) => [
      u.from,
      u.to,
      String(u.started),
      String(u.completed),
      u.failing > 0 ? label(String(u.failing), 'red') : '0',
      String(u.silent),
      minutes(u.medianSeconds),
    ]),
    'fleet-updates',
  );
}

/** A compact PatternFly table. */
function grid(header: string[], rows: Array<Array<string | HTMLElement>>, id: string): HTMLElement {
  return h(
    'table',
    { class: 'pf-v6-c-table pf-m-compact pf-m-grid-md', id },
    h(
      'thead',
      { class: 'pf-v6-c-table__thead' },
      h(
        'tr',
        { class: 'pf-v6-c-table__tr' },
        header.map((c) => h('th', { class: 'pf-v6-c-table__th' }, c)),
      ),
    ),
    h(
      'tbody',
      { class: 'pf-v6-c-table__tbody' },
      rows.map((row) =>
        h(
          'tr',
          { class: 'pf-v6-c-table__tr' },
          row.map((c) => h('td', { class: 'pf-v6-c-table__td' }, c)),
        ),
      ),
    ),
  );
}
