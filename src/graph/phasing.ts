// Graph-data 2.x's phased rollouts (openshift/enhancements, "Phased Update Rollouts") as cincy serves
// them. A timed version entry `{name, start}` enters its channel at `start`, not before; the edges into
// it reach the channel's clusters over the duration of the channel's rule that matches each edge (patch:
// a source of the same minor; minor: of an earlier minor of the same major; the rule without fromVersion
// covers the edges no other rule matches; no rule: P0S, every edge at the start). Each rule that phases
// some edge becomes a rollout of its own (graph/rollouts.ts), with an id derived from what it governs, so
// every replica derives the same ones, and a halt stored under that id outlives a new import.
import { createHash } from 'node:crypto';
import { parseIsoDuration } from '../duration.js';
import type { Channel } from './model.js';
import { declaredRollout, type Rollout } from './rollouts.js';
import { splitArch } from './version.js';

/** Rollouts derived from graph-data have ids with this prefix; those declared through the API never do. */
export const GRAPH_DATA_PREFIX = 'gd-';

type Kind = 'patch' | 'minor' | 'major';
const KINDS: readonly Kind[] = ['patch', 'minor', 'major'];

/**
 * The channels as served at `now`: each timed version entry left out until its start. `nextStart`: the
 * soonest start still to come, when the served graph must be built again.
 */
export function channelsAt(channels: readonly Channel[], now: number): { channels: Channel[]; nextStart?: number } {
  let nextStart: number | undefined;
  const out = channels.map((c) => {
    if (!c.phasing) return c;
    const starts = c.phasing.starts;
    const versions = c.versions.filter((v) => {
      const text = starts[v];
      if (text === undefined) return true;
      const start = Date.parse(text);
      if (start <= now) return true;
      nextStart = Math.min(nextStart ?? Infinity, start);
      return false;
    });
    return versions.length === c.versions.length ? c : { ...c, versions };
  });
  return { channels: out, ...(nextStart !== undefined && { nextStart }) };
}

/** The rollouts graph-data's channels declare: one per timed version and rule that phases some edges. */
export function graphDataRollouts(channels: readonly Channel[]): Rollout[] {
  const out: Rollout[] = [];
  const seen = new Set<string>();
  for (const c of channels) {
    if (c.internal || !c.phasing) continue;
    const { rules, starts } = c.phasing;
    // Each kind of edge goes to the first rule naming it, else to the default.
    const byKind = new Map<Kind, { duration: string; ms: number; rule: string }>();
    const fallback = rules.find((r) => r.fromVersion === undefined);
    for (const kind of KINDS) {
      // The enhancement names patch and minor; any other fromVersion (major too) matches no edge.
      const named = kind === 'major' ? undefined : rules.find((r) => r.fromVersion === kind);
      const rule = named ?? fallback;
      const ms = rule && parseIsoDuration(rule.duration);
      if (rule && ms) byKind.set(kind, { duration: rule.duration, ms, rule: rule.fromVersion ?? 'default' });
    }
    for (const [entry, startText] of Object.entries(starts)) {
      if (!c.versions.includes(entry)) continue;
      const to = splitArch(entry.trim()).version;
      const start = Date.parse(startText);
      // Kinds phased alike make one rollout.
      const groups = new Map<string, { duration: string; ms: number; rule: string; kinds: Kind[] }>();
      for (const [kind, phase] of byKind) {
        const key = `${phase.ms} ${phase.rule}`;
        const g = groups.get(key) ?? { ...phase, kinds: [] };
        g.kinds.push(kind);
        groups.set(key, g);
      }
      for (const g of groups.values()) {
        const from = sourcesPattern(to, g.kinds);
        if (from === undefined) continue;
        // Named by the rule it follows, so a halt stored under it outlives an edit of the other rules.
        const id = `${GRAPH_DATA_PREFIX}${createHash('sha256').update(`${c.name}\n${to}\n${g.rule}`).digest('hex').slice(0, 12)}`;
        const [duration, durationMs] = [g.duration, g.ms];
        const declaration = { id, channel: c.name, to, from, start, duration, durationMs, url: '' };
        // Entries of one version for several arches (`4.16.22+amd64`, `4.16.22+arm64`) make one rollout.
        if (!seen.has(id)) out.push(declaredRollout({ ...declaration, createdAt: start, createdBy: 'graph-data' }));
        seen.add(id);
      }
    }
  }
  return out;
}

/**
 * A pattern finding the sources of `to` that differ from it by one of `kinds`: the same minor (patch), an
 * earlier minor of the same major (minor), an earlier major (major). Undefined when no version can.
 */
export function sourcesPattern(to: string, kinds: readonly Kind[]): string | undefined {
  const m = /^(\d+)\.(\d+)\./.exec(to);
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const below = (n: number): string | undefined =>
    n > 0 ? `(?:${Array.from({ length: n }, (_, i) => i).join('|')})` : undefined;
  const parts: string[] = [];
  if (kinds.includes('patch')) parts.push(`${major}[.]${minor}[.]`);
  const minors = below(minor);
  if (kinds.includes('minor') && minors) parts.push(`${major}[.]${minors}[.]`);
  const majors = below(major);
  if (kinds.includes('major') && majors) parts.push(`${majors}[.]`);
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? `^${parts[0]}` : `^(?:${parts.join('|')})`;
}

/**
 * The rollouts that decide what is served: the newest declared through the API for each channel and
 * target (an older one is history), and each graph-data rollout of a channel and target the API declared
 * none for, as stored when it was halted, resumed or cancelled, else as graph-data declares it. A stored
 * graph-data rollout graph-data no longer declares is dropped.
 */
export function governingRollouts(stored: readonly Rollout[], derived: readonly Rollout[]): Rollout[] {
  const newest = new Map<string, Rollout>();
  const storedById = new Map<string, Rollout>();
  for (const r of stored) {
    if (r.id.startsWith(GRAPH_DATA_PREFIX)) {
      storedById.set(r.id, r);
      continue;
    }
    const key = `${r.channel}\n${r.to}`;
    const seen = newest.get(key);
    if (!seen || seen.createdAt < r.createdAt || (seen.createdAt === r.createdAt && seen.id < r.id)) newest.set(key, r);
  }
  // As graph-data declares it now, in the state stored for it.
  // A rollout declared through the API overrides graph-data's for its channel and target: an
  // administrator's way out of a graph-data rollout cancelled for good.
  const overridden = new Set(newest.keys());
  const fromGraphData = derived
    .filter((d) => !overridden.has(`${d.channel}\n${d.to}`))
    .map((d) => {
      const s = storedById.get(d.id);
      return s
        ? { ...d, state: s.state, reason: s.reason, stateAt: s.stateAt, haltCounts: s.haltCounts, url: s.url }
        : d;
    });
  return [...newest.values(), ...fromGraphData].sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : 1));
}
