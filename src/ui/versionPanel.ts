// The Version tab: one release as the channel drawn serves it — its channels, errata, payload,
// signatures, whether it is served — and the updates it has there, recommended or with their risks.
// A version the channel lacks gets the channels that have it, as an answer to VersionNotFound.
import { ApiProblem, type GraphDocument, type ReleaseDetail } from './api.js';
import { alert, h, label, link, terms } from './dom.js';

export interface VersionView {
  arch: string;
  channel: string;
  version: string;
  inChannel: boolean;
  detail: ReleaseDetail | ApiProblem | undefined;
  targets: Array<{ to: string; kind: 'recommended' | 'conditional'; risks: string[] }>;
  sources: string[];
  doc: GraphDocument;
}

export interface VersionActions {
  select(version: string): void;
  switchChannel(channel: string): void;
  planFrom(version: string): void;
}

export function renderVersion(panel: HTMLElement, v: VersionView, act: VersionActions): void {
  panel.replaceChildren(...content(v, act));
}

function content(v: VersionView, act: VersionActions): HTMLElement[] {
  if (!v.version)
    return [
      h(
        'p',
        { class: 'cy-hint' },
        'Select a version: click it on the graph, focus the graph and use the arrow keys, or type it above.',
      ),
    ];
  const out: HTMLElement[] = [h('h2', { class: 'pf-v6-c-title pf-m-xl', tabindex: '-1' }, v.version)];
  const detail = v.detail instanceof ApiProblem ? undefined : v.detail;
  if (v.detail instanceof ApiProblem)
    out.push(
      alert(
        'danger',
        v.detail.status === 404 ? `${v.version} is not a release of ${v.arch}` : 'The release could not be read',
        v.detail.message,
      ),
    );
  if (!v.inChannel && detail) {
    const publicChannels = detail.channels.filter((c) => c.kind === 'public').map((c) => c.name);
    out.push(
      alert(
        'warning',
        `${v.version} is not in ${v.channel}`,
        publicChannels.length === 0
          ? `No public channel of ${v.arch} has it.`
          : h(
              'span',
              {},
              'It is in: ',
              ...publicChannels.flatMap((c, i) => [
                i > 0 ? ', ' : '',
                h('button', { type: 'button', class: 'cy-link-button', onclick: () => act.switchChannel(c) }, c),
              ]),
            ),
      ),
    );
  }
  if (detail) out.push(details(detail));
  if (v.inChannel) out.push(...updates(v, act));
  out.push(
    h(
      'div',
      { class: 'cy-actions' },
      h(
        'button',
        { type: 'button', class: 'pf-v6-c-button pf-m-secondary', onclick: () => act.planFrom(v.version) },
        'Plan a path from here',
      ),
    ),
  );
  return out;
}

function details(d: ReleaseDetail): HTMLElement {
  const errata = d.release.metadata?.url;
  // `served` is about signatures (--require-signatures); channels and metadata decide the rest.
  const served = d.served
    ? label('served', 'green')
    : h('span', {}, label('withheld', 'red'), ' ', d.withheldBecause ?? '');
  return terms([
    [
      'Channels',
      h(
        'span',
        { class: 'cy-labels' },
        d.channels.filter((c) => c.kind === 'public').map((c) => label(c.name, 'blue')),
      ),
    ],
    ['Errata', errata ? link(errata) : 'none'],
    ['Payload', h('span', { class: 'cy-mono' }, d.release.payload)],
    [
      'Signatures',
      d.signatures.length === 0
        ? 'none stored'
        : `${d.signatures.length} (${[...new Set(d.signatures.map((s) => s.keyId))].join(', ')})`,
    ],
    ['Signature policy', served],
  ]);
}

function updates(v: VersionView, act: VersionActions): HTMLElement[] {
  const riskInfo = new Map(v.doc.conditionalEdges.flatMap((g) => g.risks.map((r) => [r.name, r] as const)));
  const recommended = v.targets.filter((t) => t.kind === 'recommended').map((t) => t.to);
  const conditional = v.targets.filter((t) => t.kind === 'conditional');
  const versionButton = (to: string): HTMLElement =>
    h('button', { type: 'button', class: 'cy-link-button', onclick: () => act.select(to) }, to);
  return [
    h('h3', { class: 'cy-heading' }, `Recommended updates (${recommended.length})`),
    recommended.length === 0
      ? h('p', { class: 'cy-hint' }, `None in ${v.channel}.`)
      : h(
          'div',
          { class: 'cy-versions', role: 'list' },
          recommended.map((to) => h('span', { role: 'listitem' }, versionButton(to))),
        ),
    h('h3', { class: 'cy-heading' }, `Conditional updates (${conditional.length})`),
    conditional.length === 0
      ? h('p', { class: 'cy-hint' }, 'None.')
      : h(
          'ul',
          { class: 'cy-list' },
          conditional.map((t) =>
            h(
              'li',
              {},
              versionButton(t.to),
              ' ',
              t.risks.map((name) => {
                const risk = riskInfo.get(name);
                return h(
                  'span',
                  { title: risk?.message ?? '' },
                  label(name, 'orange'),
                  risk ? [' ', link(risk.url, 'details')] : null,
                  ' ',
                );
              }),
            ),
          ),
        ),
    h(
      'p',
      { class: 'cy-hint' },
      `${v.sources.length} ${v.sources.length === 1 ? 'version' : 'versions'} of ${v.channel} ${v.sources.length === 1 ? 'updates' : 'update'} to ${v.version}.`,
    ),
  ];
}
