// The Explain an edge tab's answer: whether the channel has the edge and exactly why, with the rule,
// file or promotion step behind it, and the channels that have a version the channel lacks.
import type { Explanation } from './api.js';
import { alert, h, label, link } from './dom.js';

const VARIANT: Record<string, 'success' | 'warning' | 'danger'> = { recommended: 'success', conditional: 'warning' };

export function renderExplanation(result: HTMLElement, e: Explanation): void {
  const title = e.edge
    ? `${e.from} → ${e.to}: ${e.recommended ? 'recommended' : 'conditional'} edge in ${e.channel}`
    : `${e.from} → ${e.to}: no edge in ${e.channel}`;
  const rows: HTMLElement[] = [h('p', {}, e.message), h('p', { class: 'cy-hint' }, `reason code: ${e.code}`)];
  // The message already names the channels that have a missing version; the feeder says what promotion would do.
  for (const n of e.notInChannel ?? [])
    if (n.feeder) rows.push(h('p', {}, `${n.version}, feeder ${n.feeder.feeder}: ${n.feeder.message}`));
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
    rows.push(h('p', {}, label(r.name, 'orange'), ` ${r.message} `, link(r.url, 'details')));
  if (e.edge && e.edgeInChannels && e.edgeInChannels.length > 0)
    rows.push(h('p', { class: 'cy-hint' }, `The edge is in: ${e.edgeInChannels.join(', ')}`));
  result.replaceChildren(alert(VARIANT[e.code] ?? 'danger', title, ...rows));
}
