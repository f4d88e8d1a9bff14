// The changes between two states of one (channel, arch) view: releases added and withdrawn, edges
// added and removed, risks declared, changed and withdrawn. Pure; causes and actors are set later
// (causes.ts).
import { isDeepStrictEqual } from 'node:util';
import type { Change } from '../../history/change.js';
import type { ViewState } from './viewState.js';

export const EMPTY_VIEW: ViewState = { releases: [], edges: {}, risks: {} };

/** The changes from `before` to `after` of the view (channel, arch), all at `at`, in a stable order. */
export function viewDiff(
  before: ViewState,
  after: ViewState,
  where: { channel: string; arch: string; at: string },
): Change[] {
  const { channel, arch, at } = where;
  const out: Change[] = [];
  const had = new Set(before.releases);
  const has = new Set(after.releases);
  for (const version of after.releases)
    if (!had.has(version)) out.push({ kind: 'release-added', at, channel, arch, version });
  for (const version of before.releases)
    if (!has.has(version)) out.push({ kind: 'release-withdrawn', at, channel, arch, version });
  const ends = (key: string): { from: string; to: string } => {
    const [from, to] = key.split(' ') as [string, string];
    return { from, to };
  };
  for (const key of Object.keys(after.edges).sort())
    if (!(key in before.edges))
      out.push({ kind: 'edge-added', at, channel, arch, ...ends(key), ...risksOf(after, key) });
  for (const key of Object.keys(before.edges).sort())
    if (!(key in after.edges))
      out.push({ kind: 'edge-removed', at, channel, arch, ...ends(key), ...risksOf(before, key) });
  const edgesOf = (view: ViewState, risk: string): Array<{ from: string; to: string }> =>
    Object.keys(view.edges)
      .filter((k) => view.edges[k]!.includes(risk))
      .sort()
      .map(ends);
  for (const risk of Object.keys(after.risks).sort()) {
    const now = after.risks[risk]!;
    const was = before.risks[risk];
    const detail = {
      message: now.message,
      url: now.url,
      matchingRules: now.matchingRules,
      edges: edgesOf(after, risk),
    };
    if (!was) out.push({ kind: 'risk-declared', at, channel, arch, risk, detail });
    else if (!isDeepStrictEqual(was, now))
      out.push({
        kind: 'risk-changed',
        at,
        channel,
        arch,
        risk,
        detail: { ...detail, before: { message: was.message, url: was.url, matchingRules: was.matchingRules } },
      });
  }
  for (const risk of Object.keys(before.risks).sort())
    if (!(risk in after.risks)) {
      const was = before.risks[risk]!;
      out.push({
        kind: 'risk-withdrawn',
        at,
        channel,
        arch,
        risk,
        detail: { message: was.message, url: was.url, edges: edgesOf(before, risk) },
      });
    }
  return out;
}

/** The risks an edge is conditional on, as a detail (none for an unconditional edge). */
function risksOf(view: ViewState, key: string): { detail?: Record<string, unknown> } {
  const risks = view.edges[key]!;
  return risks.length ? { detail: { risks } } : {};
}
