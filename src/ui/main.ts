// The web page: picks an architecture and channel from the catalog, draws the channel, shows the
// selected version, plans paths and explains edges, and keeps all of it in the URL (urlState.ts).
import { ApiProblem, api, type Catalog, type GraphDocument, type PlannedPath, type ReleaseDetail } from './api.js';
import { alert, byId, h } from './dom.js';
import { renderExplanation } from './explainPanel.js';
import { GraphView } from './graphView.js';
import { compareVersions } from './layout.js';
import { renderPaths } from './pathPanel.js';
import { parseState, stateQuery, type PageState, type Tab } from './urlState.js';
import { renderVersion } from './versionPanel.js';

let state: PageState = parseState(location.search);
let catalog: Catalog | undefined;
let doc: GraphDocument = { version: 1, nodes: [], edges: [], conditionalEdges: [] };
let drawnKey = '';
const view = new GraphView(byId('graph'));
const status = byId('status');

/** Writes the state into the URL: a new history entry for what a user would go back from. */
function commit(push = false): void {
  const url = `${location.pathname}${stateQuery(state)}`;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

function fail(where: HTMLElement, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  where.replaceChildren(alert('danger', 'The server did not answer', message));
}

/** The channel a fresh page opens: the newest stable channel with releases of the arch, else the largest. */
function defaultChannel(c: Catalog, arch: string): string {
  const served = c.channels.filter((ch) => (ch.releases[arch] ?? 0) > 0);
  const stable = served.filter((ch) => ch.name.startsWith('stable-'));
  const pick = stable.at(-1) ?? [...served].sort((a, b) => (b.releases[arch] ?? 0) - (a.releases[arch] ?? 0))[0];
  return pick?.name ?? '';
}

function fillPickers(c: Catalog): void {
  const arch = byId<HTMLSelectElement>('arch');
  arch.replaceChildren(...c.arches.map((a) => h('option', { value: a, selected: a === state.arch }, a)));
  const channel = byId<HTMLSelectElement>('channel');
  channel.replaceChildren(
    ...c.channels
      .filter((ch) => (ch.releases[state.arch] ?? 0) > 0)
      .map((ch) =>
        h('option', { value: ch.name, selected: ch.name === state.channel }, `${ch.name} (${ch.releases[state.arch]})`),
      ),
  );
}

/** A graph fetch started before the catalog came, when the URL named the channel. */
let prefetched: { key: string; doc: Promise<GraphDocument> } | undefined;

async function drawChannel(): Promise<void> {
  const key = `${state.channel}\u0000${state.arch}`;
  if (key === drawnKey) return;
  status.textContent = `loading ${state.channel}…`;
  doc = await (prefetched?.key === key ? prefetched.doc : api.graph(state.channel, state.arch));
  prefetched = undefined;
  drawnKey = key;
  view.setChannel(doc);
  markFirstDraw();
  const versions = [...doc.nodes.map((n) => n.version)].sort(compareVersions);
  byId('versions').replaceChildren(...versions.map((v) => h('option', { value: v })));
  const conditional = doc.conditionalEdges.reduce((n, g) => n + g.edges.length, 0);
  status.textContent =
    `${state.channel} · ${state.arch} · ${doc.nodes.length} versions · ` +
    `${doc.edges.length + conditional} edges (${conditional} conditional)`;
}

async function showVersion(): Promise<void> {
  const panel = byId('panel-version');
  byId<HTMLInputElement>('version').value = state.version;
  view.select(state.version);
  let detail: ReleaseDetail | ApiProblem | undefined;
  if (state.version) {
    try {
      detail = await api.release(state.arch, state.version);
    } catch (err) {
      if (!(err instanceof ApiProblem)) return fail(panel, err);
      detail = err;
    }
  }
  const targets = view.targets(state.version);
  const conditional = targets.filter((t) => t.kind === 'conditional').length;
  byId('announce').textContent = !state.version
    ? ''
    : view.has(state.version)
      ? `${state.version} selected: ${targets.length - conditional} recommended and ${conditional} conditional updates`
      : `${state.version} is not in ${state.channel}`;
  renderVersion(
    panel,
    {
      arch: state.arch,
      channel: state.channel,
      version: state.version,
      inChannel: view.has(state.version),
      detail,
      targets: targets.sort((a, b) => compareVersions(a.to, b.to)),
      sources: view.sources(state.version),
      doc,
    },
    {
      select: (v) => void selectVersion(v),
      switchChannel: (c) => void changeChannel(c),
      planFrom: (v) => {
        state.from = v;
        (byId<HTMLFormElement>('path-form').elements.namedItem('from') as HTMLInputElement).value = v;
        showTab('path');
      },
    },
  );
}

async function selectVersion(version: string): Promise<void> {
  state.version = version;
  commit(true);
  await showVersion();
}

async function changeChannel(channel: string): Promise<void> {
  state.channel = channel;
  byId<HTMLSelectElement>('channel').value = channel;
  commit(true);
  await refresh();
}

function showTab(tab: Tab): void {
  state.tab = tab;
  commit();
  for (const t of ['version', 'path', 'explain'] as const) {
    const button = byId(`tab-${t}`);
    button.setAttribute('aria-selected', String(t === tab));
    button.tabIndex = t === tab ? 0 : -1;
    button.parentElement!.classList.toggle('pf-m-current', t === tab);
    byId(`panel-${t}`).hidden = t !== tab;
  }
}

let plannedPaths: PlannedPath[] = [];

async function planPath(): Promise<void> {
  const result = byId('path-result');
  if (!state.from || !state.to) return;
  result.replaceChildren(h('p', { class: 'cy-hint' }, 'Planning…'));
  try {
    const answer = await api.paths({
      from: state.from,
      to: state.to,
      arch: state.arch,
      mode: state.mode,
      acceptRisks: state.accept.replace(/\s+/g, ''),
    });
    plannedPaths = answer.paths;
    const draw = (index: number): void => {
      const path = plannedPaths[index];
      view.setHighlight(path && { kind: 'path', versions: [path.hops[0]!.from, ...path.hops.map((hop) => hop.to)] });
      renderPaths(result, answer, index, draw);
    };
    draw(0);
  } catch (err) {
    fail(result, err);
  }
}

async function explain(): Promise<void> {
  const result = byId('explain-result');
  if (!state.whyFrom || !state.whyTo) return;
  try {
    const e = await api.explain({ from: state.whyFrom, to: state.whyTo, channel: state.channel, arch: state.arch });
    renderExplanation(result, e);
    view.setHighlight({ kind: 'pair', versions: [state.whyFrom, state.whyTo].filter((v) => view.has(v)) });
  } catch (err) {
    fail(result, err);
  }
}

/** For a link that names a version and no channel: the newest stable (else any) public channel that has it. */
async function channelOf(version: string): Promise<string | undefined> {
  if (!version) return undefined;
  const detail = await api.release(state.arch, version).catch(() => undefined);
  const names = (detail?.channels ?? []).filter((c) => c.kind === 'public').map((c) => c.name);
  return names.filter((n) => n.startsWith('stable-')).at(-1) ?? names.at(-1);
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
  if (!catalog.arches.includes(state.arch)) state.arch = catalog.arches[0] ?? 'amd64';
  const known = catalog.channels.some((c) => c.name === state.channel && (c.releases[state.arch] ?? 0) > 0);
  if (!known) state.channel = (await channelOf(state.version)) ?? defaultChannel(catalog, state.arch);
  fillPickers(catalog);
  byId<HTMLInputElement>('all-edges').checked = state.allEdges;
  view.setAllEdges(state.allEdges);
  commit();
  try {
    await drawChannel();
  } catch (err) {
    fail(byId('panel-version'), err);
    return;
  }
  showTab(state.tab);
  const pathForm = byId<HTMLFormElement>('path-form');
  for (const [name, value] of [
    ['from', state.from],
    ['to', state.to],
    ['mode', state.mode],
    ['accept', state.accept],
  ] as const)
    (pathForm.elements.namedItem(name) as HTMLInputElement).value = value;
  const explainForm = byId<HTMLFormElement>('explain-form');
  (explainForm.elements.namedItem('from') as HTMLInputElement).value = state.whyFrom;
  (explainForm.elements.namedItem('to') as HTMLInputElement).value = state.whyTo;
  await showVersion();
  if (state.tab === 'path') await planPath();
  if (state.tab === 'explain') await explain();
}

function wire(): void {
  view.onSelect = (v) => void selectVersion(v);
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
  const tabs = ['version', 'path', 'explain'] as const;
  byId('tabs').addEventListener('click', (e) => {
    const tab = (e.target as HTMLElement).closest('button')?.dataset.tab as Tab | undefined;
    if (tab) showTab(tab);
  });
  byId('tabs').addEventListener('keydown', (e) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    const next = tabs[(tabs.indexOf(state.tab) + step + tabs.length) % tabs.length]!;
    showTab(next);
    byId(`tab-${next}`).focus();
  });
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
    const doc = api.graph(state.channel, state.arch);
    doc.catch(() => undefined); // a failure is reported when the channel is drawn
    prefetched = { key: `${state.channel}\u0000${state.arch}`, doc };
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
