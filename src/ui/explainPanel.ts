// The Explain an edge tab's answer: whether the channel has the edge and exactly why, with the rule,
// file or promotion step behind it, and the channels that have a version the channel lacks.
import type { Explanation } from './api.js';
import { alert, h, label } from './dom.js';

const VARIANT: Record<string, 'success' | 'warning' | 'danger'> = { recommended: 'success', conditional: 'warning' };

export function renderExplanation(result: HTMLElement, e: Explanation): void {
  const title = e.edge
    ? `${e.from} → ${e.to}: ${e.recommended ? 'recommended' : 'conditional'} edge in ${e.channel}`
    : `${e.from} → ${e.to}: no edge in ${e.channel}`;
  const rows: HTMLElement[] = [h('p', {}, e.message), h('p', { class: 'cy-hint' }, `reason code: ${e.code}`)];
  for (const n of e.notInChannel ?? []) {
    rows.push(
      h(
        'p',
        {},
        `${n.version} is in: `,
        n.channels.length === 0 ? 'no public channel of this architecture' : n.channels.join(', '),
      ),
    );
    if (n.feeder) rows.push(h('p', {}, `Feeder ${n.feeder.feeder}: ${n.feeder.message}`));
  }
  for (const b of e.blockedBy ?? [])
    rows.push(
      h(
        'p',
        {},
        `blocked-edges/${b.id}.yaml (from '${b.from}' to ${b.to}): `,
        b.risk ? label(b.risk.name, 'orange') : label('hard block', 'red'),
      ),
    );
  for (const m of e.metadataRules ?? []) rows.push(h('p', { class: 'cy-mono' }, `${m.version}: ${m.label}=${m.value}`));
  for (const r of e.risks ?? [])
    rows.push(
      h(
        'p',
        {},
        label(r.name, 'orange'),
        ` ${r.message} `,
        h('a', { href: r.url, rel: 'noreferrer', target: '_blank' }, 'details'),
      ),
    );
  if (e.edgeInChannels && e.edgeInChannels.length > 0)
    rows.push(h('p', { class: 'cy-hint' }, `The edge is in: ${e.edgeInChannels.join(', ')}`));
  result.replaceChildren(alert(VARIANT[e.code] ?? 'danger', title, ...rows));
}
