// The Plan a path tab's answer: the ranked paths, each hop with the channel the cluster must be on, its
// risks when conditional, and where the plan switches channel; or why there is no path.
import type { PathAnswer, PlannedPath } from './api.js';
import { alert, h, label, link } from './dom.js';

export function renderPaths(
  result: HTMLElement,
  answer: PathAnswer,
  drawn: number,
  draw: (index: number, path: PlannedPath) => void,
): void {
  const out: HTMLElement[] = [];
  if (answer.paths.length === 0)
    out.push(alert('danger', `No path from ${answer.from} to ${answer.to}`, answer.reason?.message ?? ''));
  answer.paths.forEach((path, i) => out.push(pathCard(path, i, i === drawn, () => draw(i, path))));
  if (answer.notes.length > 0)
    out.push(
      h(
        'ul',
        { class: 'cy-list' },
        answer.notes.map((n) => h('li', {}, n)),
      ),
    );
  result.replaceChildren(...out);
}

function pathCard(path: PlannedPath, index: number, current: boolean, draw: () => void): HTMLElement {
  let channel = path.hops[0]?.channel ?? '';
  const hops = path.hops.map((hop) => {
    const switched = hop.channel !== channel;
    channel = hop.channel;
    return h(
      'li',
      {},
      h('strong', {}, `${hop.from} → ${hop.to}`),
      ' ',
      hop.recommended ? label('recommended', 'blue') : hop.risks.map((r) => label(r.name, 'orange')),
      h('br'),
      h('span', { class: 'cy-hint' }, switched ? `switch to channel ${hop.channel} first` : `in ${hop.channel}`),
      hop.risks.length > 0
        ? h(
            'ul',
            { class: 'cy-list' },
            hop.risks.map((r) => h('li', {}, `${r.name}: ${r.message} `, link(r.url, 'details'))),
          )
        : null,
    );
  });
  const summary = [
    `${path.hops.length} ${path.hops.length === 1 ? 'hop' : 'hops'}`,
    `${path.channelSwitches} channel ${path.channelSwitches === 1 ? 'switch' : 'switches'}`,
    path.risksNotAccepted.length === 0 ? 'no risk to accept' : `risks: ${path.risksNotAccepted.join(', ')}`,
  ].join(' · ');
  return h(
    'div',
    { class: 'cy-path-card', 'aria-current': current ? 'true' : 'false', 'data-path': String(index) },
    h('h3', { class: 'cy-heading' }, `Path ${index + 1}`),
    h('p', { class: 'cy-hint' }, summary),
    h('ol', { class: 'cy-list' }, hops),
    h(
      'button',
      { type: 'button', class: 'pf-v6-c-button pf-m-secondary', onclick: draw, disabled: current },
      current ? 'Drawn on the graph' : 'Draw on the graph',
    ),
  );
}
