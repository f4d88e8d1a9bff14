// A small element builder for the page's panels: text is always set as text, never parsed as HTML.
type Child = Node | string | number | false | null | undefined;
type Attrs = Record<string, string | boolean | ((event: Event) => void) | undefined>;

export function h(tag: string, attrs: Attrs = {}, ...children: Array<Child | Child[]>): HTMLElement {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === false || child === null || child === undefined) continue;
    el.append(typeof child === 'number' ? String(child) : child);
  }
  return el;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

/** A PatternFly inline alert. */
export function alert(
  variant: 'success' | 'warning' | 'danger' | 'info',
  title: string,
  ...body: Child[]
): HTMLElement {
  return h(
    'div',
    { class: `pf-v6-c-alert pf-m-inline pf-m-${variant}`, role: variant === 'danger' ? 'alert' : 'status' },
    h('p', { class: 'pf-v6-c-alert__title' }, title),
    body.length > 0 ? h('div', { class: 'pf-v6-c-alert__description' }, ...body) : null,
  );
}

/** A PatternFly label. */
export function label(text: string, color?: 'blue' | 'orange' | 'green' | 'grey' | 'red'): HTMLElement {
  return h(
    'span',
    { class: `pf-v6-c-label${color ? ` pf-m-${color}` : ''}` },
    h('span', { class: 'pf-v6-c-label__content' }, h('span', { class: 'pf-v6-c-label__text' }, text)),
  );
}

/** A PatternFly description list of term/value rows. */
export function terms(rows: Array<[string, Child | Child[]]>): HTMLElement {
  return h(
    'dl',
    { class: 'pf-v6-c-description-list pf-m-horizontal pf-m-compact' },
    rows.map(([term, value]) =>
      h(
        'div',
        { class: 'pf-v6-c-description-list__group' },
        h(
          'dt',
          { class: 'pf-v6-c-description-list__term' },
          h('span', { class: 'pf-v6-c-description-list__text' }, term),
        ),
        h(
          'dd',
          { class: 'pf-v6-c-description-list__description' },
          h('div', { class: 'pf-v6-c-description-list__text' }, value),
        ),
      ),
    ),
  );
}

/** A link for http(s) addresses only; anything else (a `javascript:` URL from a data file) is shown as text. */
export function link(url: string, text: string = url): HTMLElement {
  return /^https?:\/\//i.test(url)
    ? h('a', { href: url, rel: 'noreferrer', target: '_blank' }, text)
    : h('span', {}, text);
}
