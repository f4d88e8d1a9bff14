// The web page: picks an architecture and channel from the catalog, draws the channel, shows the
// selected version, plans paths and explains edges, and keeps all of it in the URL (urlState.ts).
// Answers are matched to the latest question of their kind, so a slow answer never overwrites a newer one.
import { ApiProblem, api, type Catalog, type GraphDocument, type ReleaseDetail } from './api.js';
import { newestStable, servedChannels } from './channels.js';
import { closestName } from '../graph/closestName.js';
import { alert, byId, h } from './dom.js';
import { renderExplanation } from './explainPanel.js';
import { FleetPanel } from './fleetPanel.js';
import { ChangesPanel } from './changesPanel.js';
import { RolloutsPanel } from './rolloutsPanel.js';
import { GraphView, type Highlight } from './graphView.js';
import { versionOrder } from './layout.js';
import { renderPaths } from './pathPanel.js';
import { showTab, wireTabs } from './tabs.js';
import { parseState, stateQuery, type PageState, type Tab } from './urlState.js';
import { renderVersion } from './versionPanel.js';

let state: PageState = parseState(location.search);
let catalog: Catalog | undefined;
let doc: GraphDocument = { version: 1, nodes: [], edges: [], conditionalEdges: [] };
let drawnKey = '';
const view = new GraphView(byId('graph'));
const fleet = new FleetPanel(() => ({ channel: state.channel, arch: state.arch }));
const changes = new ChangesPanel(() => ({ channel: state.channel, arch: state.arch }));
const rollouts = new RolloutsPanel(() => ({ channel: state.channel }));
const status = byId('status');
/** How many times each kind of question was asked: an answer to an older asking is dropped. */
const asked = { refresh: 0, version: 0, path: 0, explain: 0 };
/** What the path and explain tabs draw over the graph; the current tab's is shown. */
const highlights: Partial<Record<Tab, Highlight>> = {};

/** Writes the state into the URL: a new history entry for what a user would go back to. */
function commit(push = false): void {
  const url = `${location.pathname}${stateQuery(state)}`;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

function fail(where: HTMLElement, err: unknown): void {
  const refused = err instanceof ApiProblem && err.status >= 400 && err.status < 500;
  const message = err instanceof Error ? err.message : String(err);
  where.replaceChildren(
    alert('danger', refused ? 'The server refused the question' : 'The server did not answer', message),
  );
}

function fillPickers(c: Catalog): void {
  const arch = byId<HTMLSelectElement>('arch');
  arch.replaceChildren(...c.arches.map((a) => h('option', { value: a, selected: a === state.arch }, a)));
  byId('channel').replaceChildren(
    ...servedChannels(c, state.arch).map((ch) =>
      h('option', { value: ch.name, selected: ch.name === state.channel }, `${ch.name} (${ch.releases[state.arch]})`),
    ),
  );
}

/** A graph fetch started before the catalog came, when the URL named the channel. */
let prefetched: { key: string; doc: Promise<GraphDocument> } | undefined;

function draw(key: string, fetched: GraphDocument, notice: string): void {
  doc = fetched;
  drawnKey = key;
  view.setChannel(doc);
  markFirstDraw();
  const versions = doc.nodes.map((n) => n.version).sort(versionOrder);
  byId('versions').replaceChildren(...versions.map((v) => h('option', { value: v })));
  const conditional = doc.conditionalEdges.reduce((n, g) => n + g.edges.length, 0);
  status.textContent =
    `${state.channel} · ${state.arch} · ${doc.nodes.length} versions · ` +
    `${doc.edges.length + conditional} edges (${conditional} conditional)${notice}`;
}

function setHighlight(tab: Tab, highlight: Highlight | undefined): void {
  highlights[tab] = highlight;
  if (state.tab === tab) view.setHighlight(highlight);
}

async function showVersion(focus = false): Promise<void> {
  const ticket = ++asked.version;
  const panel = byId('panel-version');
  byId<HTMLInputElement>('version').value = state.version;
  view.select(state.version);
  let detail: ReleaseDetail | ApiProblem | undefined;
  if (state.version) {
    try {
      detail = await api.release(state.arch, state.version);
    } catch (err) {
      if (ticket !== asked.version) return;
      if (!(err instanceof ApiProblem)) return fail(panel, err);
      detail = err;
    }
  }
  if (ticket !== asked.version) return;
  const targets = view.targets(state.version).sort((a, b) => versionOrder(a.to, b.to));
  const conditional = targets.filter((t) => t.kind === 'conditional').length;
  byId('announce').textContent = !state.version
    ? ''
    : view.has(state.version)
      ? `${state.version} selected: ${targets.length - conditional} recommended and ${conditional} conditional updates`
      : `${state.version} is not in ${state.channel}`;
  const v = { arch: state.arch, channel: state.channel, version: state.version, inChannel: view.has(state.version) };
  renderVersion(
    panel,
    { ...v, detail, targets, sources: view.sources(state.version), doc },
    {
      select: (to) => void selectVersion(to, { focus: true }),
      switchChannel: (c) => void changeChannel(c),
      planFrom: (from) => {
        state.from = from;
        formField('path-form', 'from').value = from;
        chooseTab('path');
        formField('path-form', 'to').focus();
      },
    },
  );
  if (focus) panel.querySelector<HTMLElement>('h2')?.focus();
}

async function selectVersion(version: string, how: { focus?: boolean; keyboard?: boolean } = {}): Promise<void> {
  state.version = version;
  // Moving through the graph with the arrow keys replaces the entry; a click or a link adds one.
  commit(!how.keyboard);
  await showVersion(how.focus);
}

async function changeChannel(channel: string): Promise<void> {
  state.channel = channel;
  commit(true);
  await refresh();
}

function chooseTab(tab: Tab): void {
  state.tab = tab;
  commit();
  showTab(tab);
  view.setHighlight(highlights[tab]);
  if (tab === 'rollouts') void rollouts.show();
}

const formField = (form: string, name: string): HTMLInputElement =>
  byId<HTMLFormElement>(form).elements.namedItem(name) as HTMLInputElement;

async function planPath(): Promise<void> {
  const ticket = ++asked.path;
  const result = byId('path-result');
  if (!state.from || !state.to) {
    result.replaceChildren();
    return setHighlight('path', undefined);
  }
  result.replaceChildren(h('p', { class: 'cy-hint' }, 'Planning…'));
  try {
    const answer = await api.paths({
      from: state.from,
      to: state.to,
      arch: state.arch,
      mode: state.mode,
      acceptRisks: state.accept.replace(/\s+/g, ''),
    });
    if (ticket !== asked.path) return;
    const drawPath = (index: number): void => {
      const path = answer.paths[index];
      const versions = path ? [path.hops[0]!.from, ...path.hops.map((hop) => hop.to)] : undefined;
      setHighlight('path', versions && { kind: 'path', versions });
      renderPaths(result, answer, index, drawPath);
    };
    drawPath(0);
  } catch (err) {
    if (ticket !== asked.path) return;
    setHighlight('path', undefined);
    fail(result, err);
  }
}

async function explain(): Promise<void> {
  const ticket = ++asked.explain;
  const result = byId('explain-result');
  if (!state.whyFrom || !state.whyTo) {
    result.replaceChildren();
    return setHighlight('explain', undefined);
  }
  try {
    const e = await api.explain({ from: state.whyFrom, to: state.whyTo, channel: state.channel, arch: state.arch });
    if (ticket !== asked.explain) return;
    renderExplanation(result, e);
    setHighlight('explain', { kind: 'pair', versions: [state.whyFrom, state.whyTo].filter((v) => view.has(v)) });
  } catch (err) {
    if (ticket !== asked.explain) return;
    setHighlight('explain', undefined);
    fail(result, err);
  }
}

/** For a link that names a version and no channel: the newest stable (else any) public channel that has it. */
async function channelOf(version: string): Promise<string | undefined> {
  if (!version) return undefined;
  const detail = await api.release(state.arch, version).catch(() => undefined);
  return newestStable((detail?.channels ?? []).filter((c) => c.kind === 'public').map((c) => c.name));
}

let firstDrawMarked = false;

/** The first frame with a channel drawn: what the load-time measurement (and a test) reads. */
function markFirstDraw(): void {
  if (firstDrawMarked) return;
  firstDrawMarked = true;
  requestAnimationFrame(() => {
    performance.mark('cincy:graph-drawn');
    document.body.dataset.drawn = 'true';
  });
}

/** Brings the page in line with the state: pickers, channel drawn, version shown, questions answered. */
async function refresh(): Promise<void> {
  if (!catalog) return;
  const ticket = ++asked.refresh;
  let notice = '';
  if (!catalog.arches.includes(state.arch)) {
    notice = ` · ${state.arch} is not served: showing ${catalog.arches[0] ?? 'amd64'}`;
    state.arch = catalog.arches[0] ?? 'amd64';
  }
  const served = servedChannels(catalog, state.arch);
  if (!served.some((c) => c.name === state.channel)) {
    const wanted = state.channel;
    // A mistyped name is taken for the channel it is closest to, and said so.
    const meant = wanted
      ? closestName(
          wanted,
          served.map((c) => c.name),
        )
      : undefined;
    const named = meant ?? (await channelOf(state.version));
    if (ticket !== asked.refresh) return;
    state.channel = named ?? newestStable(served.map((c) => c.name)) ?? '';
    if (meant) notice += ` · there is no channel ${wanted}: did you mean ${meant}? Showing it`;
    else if (wanted) notice += ` · ${wanted} has no ${state.arch} releases: showing ${state.channel}`;
  }
  fillPickers(catalog);
  byId<HTMLInputElement>('all-edges').checked = state.allEdges;
  view.setAllEdges(state.allEdges);
  commit();
  const key = `${state.channel}\u0000${state.arch}`;
  if (key !== drawnKey) {
    status.textContent = `loading ${state.channel}…`;
    let fetched: GraphDocument;
    try {
      fetched = await (prefetched?.key === key ? prefetched.doc : api.graph(state.channel, state.arch));
    } catch (err) {
      if (ticket === asked.refresh) fail(byId('panel-version'), err);
      return;
    }
    prefetched = undefined;
    if (ticket !== asked.refresh) return;
    draw(key, fetched, notice);
    delete highlights.path;
    delete highlights.explain;
  }
  showTab(state.tab);
  for (const name of ['from', 'to', 'mode', 'accept'] as const) formField('path-form', name).value = state[name];
  formField('explain-form', 'from').value = state.whyFrom;
  formField('explain-form', 'to').value = state.whyTo;
  await Promise.all([
    showVersion(),
    planPath(),
    explain(),
    fleet.show(),
    changes.show(),
    // Read while its tab is shown only: it reads again every 15 s then.
    state.tab === 'rollouts' && rollouts.show(),
  ]);
  view.setHighlight(highlights[state.tab]);
}

function wire(): void {
  view.onSelect = (v, how) => void selectVersion(v, how);
  byId('arch').addEventListener('change', (e) => {
    state.arch = (e.target as HTMLSelectElement).value;
    commit(true);
    void refresh();
  });
  byId('channel').addEventListener('change', (e) => void changeChannel((e.target as HTMLSelectElement).value));
  byId('version').addEventListener('change', (e) => void selectVersion((e.target as HTMLInputElement).value.trim()));
  byId('pick').addEventListener('submit', (e) => e.preventDefault());
  byId('all-edges').addEventListener('change', (e) => {
    state.allEdges = (e.target as HTMLInputElement).checked;
    view.setAllEdges(state.allEdges);
    commit();
  });
  wireTabs(() => state.tab, chooseTab);
  byId('path-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    state.from = String(form.get('from') ?? '').trim();
    state.to = String(form.get('to') ?? '').trim();
    state.mode = form.get('mode') === 'eus' ? 'eus' : 'fewest-hops';
    state.accept = String(form.get('accept') ?? '').trim();
    commit(true);
    void planPath();
  });
  byId('explain-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    state.whyFrom = String(form.get('from') ?? '').trim();
    state.whyTo = String(form.get('to') ?? '').trim();
    commit(true);
    void explain();
  });
  addEventListener('popstate', () => {
    state = parseState(location.search);
    void refresh();
  });
}

async function boot(): Promise<void> {
  wire();
  if (state.channel) {
    const early = api.graph(state.channel, state.arch);
    early.catch(() => undefined); // a failure is reported when the channel is drawn
    prefetched = { key: `${state.channel}\u0000${state.arch}`, doc: early };
  }
  try {
    catalog = await api.catalog();
  } catch (err) {
    fail(byId('panel-version'), err);
    return;
  }
  await refresh();
  document.body.dataset.ready = 'true';
}

void boot();
