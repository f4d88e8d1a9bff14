// The side card's tabs (Version, Plan a path, Explain an edge, Fleet, Changes, Rollouts) as an ARIA tab list:
// one tab current, arrow keys and Home/End move between them.
import { byId } from './dom.js';
import { TABS, type Tab } from './urlState.js';

export function showTab(tab: Tab): void {
  for (const t of TABS) {
    const button = byId(`tab-${t}`);
    button.setAttribute('aria-selected', String(t === tab));
    button.tabIndex = t === tab ? 0 : -1;
    button.parentElement!.classList.toggle('pf-m-current', t === tab);
    byId(`panel-${t}`).hidden = t !== tab;
  }
}

/** Calls `choose` with the tab a click or a key picks. */
export function wireTabs(current: () => Tab, choose: (tab: Tab) => void): void {
  const list = byId('tabs');
  list.addEventListener('click', (e) => {
    const tab = (e.target as HTMLElement).closest('button')?.dataset.tab as Tab | undefined;
    if (tab) choose(tab);
  });
  list.addEventListener('keydown', (e) => {
    const at = TABS.indexOf(current());
    const index: Record<string, number> = {
      ArrowRight: (at + 1) % TABS.length,
      ArrowLeft: (at - 1 + TABS.length) % TABS.length,
      Home: 0,
      End: TABS.length - 1,
    };
    const next = TABS[index[e.key] ?? -1];
    if (!next) return;
    e.preventDefault();
    choose(next);
    byId(`tab-${next}`).focus();
  });
}
