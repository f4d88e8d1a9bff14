// The Changes tab: graph history of the selected channel and arch (GET /api/v1/changes) as a timeline,
// newest first, a page at a time: each change with its time, what changed, its cause and, for an admin
// write, who made it.
import { api, type ChangeItem, type ChangesPage } from './api.js';
import { pageNav } from './pageNav.js';
import { alert, byId, h, label } from './dom.js';

/** What the panel shows: the channel and arch the page has selected. */
export interface ChangesScope {
  channel: string;
  arch: string;
}

export const CHANGES_PAGE_SIZE = 20;

const KIND_LABELS: Record<ChangeItem['kind'], [string, 'blue' | 'orange' | 'green' | 'grey' | 'red']> = {
  'edge-added': ['edge added', 'green'],
  'edge-removed': ['edge removed', 'red'],
  'risk-declared': ['risk declared', 'orange'],
  'risk-changed': ['risk changed', 'orange'],
  'risk-withdrawn': ['risk withdrawn', 'blue'],
  'release-added': ['release added', 'green'],
  'release-withdrawn': ['release withdrawn', 'red'],
  'clusters-exposed': ['clusters exposed', 'orange'],
  'clusters-stranded': ['clusters stranded', 'red'],
  'rollout-declared': ['rollout declared', 'blue'],
  'rollout-halted': ['rollout halted', 'red'],
  'rollout-resumed': ['rollout resumed', 'green'],
  'rollout-cancelled': ['rollout cancelled', 'grey'],
};

/** What a change is about, in words: the release, the risk and its edges, or the edge. */
export function changeSubject(c: ChangeItem): string {
  if (c.version) return c.version;
  if (c.kind.startsWith('rollout-')) return `${String(c.detail?.rollout ?? '?')}: edges into ${c.to ?? '?'}`;
  if (c.risk) {
    const edges = (c.detail?.edges as Array<{ from: string; to: string }> | undefined) ?? [];
    return edges.length ? `${c.risk} on ${edges.map((e) => `${e.from} → ${e.to}`).join(', ')}` : c.risk;
  }
  return `${c.from ?? '?'} → ${c.to ?? '?'}`;
}

export class ChangesPanel {
  private asked = 0;
  /** The cursors of the pages shown so far: the first page has none. */
  private cursors: Array<string | undefined> = [undefined];
  /** The channel and arch the cursors are of: another one starts again at the first page. */
  private paged = '';

  constructor(private readonly scope: () => ChangesScope) {}

  /** Shows the timeline of the selected channel and arch (called again when either changes). */
  async show(): Promise<void> {
    const result = byId('changes-result');
    const { channel, arch } = this.scope();
    if (!channel) {
      result.replaceChildren(h('p', { class: 'cy-hint' }, 'Choose a channel to see its changes.'));
      return;
    }
    if (this.paged !== `${channel} ${arch}`) {
      this.paged = `${channel} ${arch}`;
      this.cursors = [undefined];
    }
    const ticket = ++this.asked;
    try {
      const page = await api.changes({ channel, arch, cursor: this.cursors.at(-1), limit: String(CHANGES_PAGE_SIZE) });
      if (ticket !== this.asked) return;
      result.replaceChildren(h('h3', { class: 'cy-subhead' }, `Changes to ${channel} (${arch})`), this.timeline(page));
    } catch (err) {
      if (ticket !== this.asked) return;
      result.replaceChildren(alert('danger', 'The changes could not be read', (err as Error).message));
    }
  }

  private timeline(page: ChangesPage): HTMLElement {
    const nav = pageNav({
      id: 'changes',
      cursors: this.cursors,
      next: page.nextCursor,
      labels: { previous: 'Newer', next: 'Older' },
      show: () => this.show(),
    });
    if (page.changes.length === 0)
      return h('div', {}, h('p', { class: 'cy-hint' }, 'No change recorded in this channel yet.'), nav);
    return h(
      'div',
      {},
      h(
        'ol',
        { class: 'cy-timeline', id: 'changes-timeline' },
        page.changes.map((c) => {
          const [text, color] = KIND_LABELS[c.kind];
          return h(
            'li',
            { class: 'cy-timeline-item', 'data-kind': c.kind },
            h('time', { datetime: c.at }, c.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')),
            ' ',
            label(text, color),
            ' ',
            h('span', { class: 'cy-change-subject' }, changeSubject(c)),
            c.cause ? h('span', { class: 'cy-hint cy-change-cause' }, ` cause: ${c.cause}`) : null,
            c.actor ? h('span', { class: 'cy-hint cy-change-actor' }, ` by ${c.actor}`) : null,
          );
        }),
      ),
      nav,
    );
  }
}
