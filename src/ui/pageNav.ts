// The previous and next buttons of a paginated list, and its page number. A list keeps the cursors of
// the pages shown so far (the first page has none): the buttons pop one or push the next, then show.
import { h } from './dom.js';

export interface PageNav {
  /** Prefix of the elements' ids: `<id>-previous`, `<id>-page`, `<id>-next`. */
  id: string;
  cursors: Array<string | undefined>;
  /** The cursor of the page after this one; none on the last page. */
  next: string | undefined;
  labels: { previous: string; next: string };
  show(): Promise<void>;
}

export function pageNav(p: PageNav): HTMLElement {
  const button = (which: 'previous' | 'next', disabled: boolean, move: () => void): HTMLElement =>
    h(
      'button',
      {
        class: 'pf-v6-c-button pf-m-secondary',
        type: 'button',
        id: `${p.id}-${which}`,
        disabled,
        onclick: () => {
          move();
          void p.show();
        },
      },
      p.labels[which],
    );
  return h(
    'div',
    { class: 'cy-actions' },
    button('previous', p.cursors.length === 1, () => p.cursors.pop()),
    h('span', { class: 'cy-hint', id: `${p.id}-page` }, `page ${p.cursors.length}`),
    button('next', p.next === undefined, () => p.cursors.push(p.next)),
  );
}
