// The page's state as its URL's query, so any view can be shared: what is drawn, what is selected, and
// the path and explain questions asked. Defaults are left out of the URL.
import type { PathMode } from '../graph/paths.js';

export type Tab = 'version' | 'path' | 'explain' | 'fleet' | 'changes' | 'rollouts';

export interface PageState {
  arch: string;
  channel: string;
  version: string;
  allEdges: boolean;
  tab: Tab;
  /** The path question. */
  from: string;
  to: string;
  mode: PathMode;
  accept: string;
  /** The explain question (in the selected channel). */
  whyFrom: string;
  whyTo: string;
}

export const DEFAULT_STATE: PageState = {
  arch: 'amd64',
  channel: '',
  version: '',
  allEdges: false,
  tab: 'version',
  from: '',
  to: '',
  mode: 'fewest-hops',
  accept: '',
  whyFrom: '',
  whyTo: '',
};

/** Every tab of the side card, in the order they are shown. */
export const TABS: readonly Tab[] = ['version', 'path', 'explain', 'fleet', 'changes', 'rollouts'];

export function parseState(search: string): PageState {
  const q = new URLSearchParams(search);
  const text = (key: string, fallback: string): string => (q.get(key) ?? fallback).trim().slice(0, 200);
  const tab = q.get('tab') as Tab | null;
  return {
    arch: text('arch', DEFAULT_STATE.arch),
    channel: text('channel', ''),
    version: text('version', ''),
    allEdges: q.get('edges') === 'all',
    tab: tab && TABS.includes(tab) ? tab : 'version',
    from: text('from', ''),
    to: text('to', ''),
    mode: q.get('mode') === 'eus' ? 'eus' : 'fewest-hops',
    accept: text('accept', ''),
    whyFrom: text('whyFrom', ''),
    whyTo: text('whyTo', ''),
  };
}

export function stateQuery(s: PageState): string {
  const q = new URLSearchParams();
  const put = (key: string, value: string, fallback = ''): void => {
    if (value !== fallback) q.set(key, value);
  };
  put('arch', s.arch, DEFAULT_STATE.arch);
  put('channel', s.channel);
  put('version', s.version);
  if (s.allEdges) q.set('edges', 'all');
  put('tab', s.tab, DEFAULT_STATE.tab);
  put('from', s.from);
  put('to', s.to);
  put('mode', s.mode, DEFAULT_STATE.mode);
  put('accept', s.accept);
  put('whyFrom', s.whyFrom);
  put('whyTo', s.whyTo);
  const text = q.toString();
  return text === '' ? '' : `?${text}`;
}
