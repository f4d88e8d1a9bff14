// What a disconnected mirror must hold for clusters at some versions to reach a target: the releases on the
// best planned path from each (in EUS mode, the odd minor between and no prerelease where GA releases do), the
// sources themselves (a cluster whose version the mirror lacks is told VersionNotFound by an update service
// built from it) and the target, with the oc-mirror v2 ImageSetConfiguration that mirrors exactly those.
import semver from 'semver';
import type { FullGraph } from './model.js';
import { planPaths, type PathMode } from './paths.js';

/** What a mirror plan is asked for: the target, the versions clusters run, the arch, and how paths are chosen. */
export interface MirrorPlanRequest {
  to: string;
  /** The versions clusters run now; none plans the target alone. */
  from: string[];
  arch: string;
  channel?: string;
  mode: PathMode;
}

export interface MirrorRelease {
  version: string;
  /** The release image, by digest. */
  payload: string;
  /** The channel oc-mirror is to find it in: the one the plan uses for the hop to (or from) it. */
  channel: string;
  /** Why it is in the plan. */
  role: 'source' | 'intermediate' | 'target';
}

export interface MirrorPlan {
  to: string;
  arch: string;
  mode: PathMode;
  /** Each source with the versions of its path (itself first), or why it has none. */
  sources: Array<{ from: string; path: string[] } | { from: string; reason: { code: string; message: string } }>;
  /** What to mirror, in version order. */
  releases: MirrorRelease[];
  notes: string[];
  imageSetConfiguration: ImageSetConfiguration;
}

/** The part of oc-mirror v2's ImageSetConfiguration a plan fills. */
export interface ImageSetConfiguration {
  apiVersion: 'mirror.openshift.io/v2alpha1';
  kind: 'ImageSetConfiguration';
  mirror: {
    platform: {
      architectures: string[];
      /** The graph image too, for an update service in the disconnected network. */
      graph: true;
      channels: Array<{ name: string; minVersion: string; maxVersion: string }>;
    };
  };
}

/** A target outranks an intermediate, which outranks a source: a release's role is its largest for the fleet. */
const RANK = { source: 0, intermediate: 1, target: 2 } as const;

export function planMirror(full: FullGraph, q: MirrorPlanRequest): MirrorPlan {
  const nodes = new Map(full.nodes.filter((n) => n.arch === q.arch).map((n) => [n.version, n]));
  const releases = new Map<string, MirrorRelease>();
  const notes: string[] = [];
  const add = (version: string, channel: string, role: MirrorRelease['role']): void => {
    const known = releases.get(version);
    if (known && RANK[known.role] >= RANK[role]) return;
    releases.set(version, { version, payload: nodes.get(version)!.payload, channel: known?.channel ?? channel, role });
  };
  const sources: MirrorPlan['sources'] = [];
  for (const from of q.from) {
    const answer = planPaths(full, {
      from,
      to: q.to,
      arch: q.arch,
      ...(q.channel !== undefined && { channel: q.channel }),
      mode: q.mode,
      limit: 1,
    });
    const path = answer.paths[0];
    if (!path) {
      sources.push({ from, reason: answer.reason ?? { code: 'no-path', message: `no path from ${from}` } });
      continue;
    }
    for (const note of answer.notes) if (!notes.includes(note)) notes.push(note);
    sources.push({ from, path: [from, ...path.hops.map((h) => h.to)] });
    add(from, path.hops[0]!.channel, 'source');
    path.hops.forEach((hop, i) => add(hop.to, hop.channel, i === path.hops.length - 1 ? 'target' : 'intermediate'));
  }
  if (!releases.has(q.to)) {
    const target = nodes.get(q.to);
    const channel = q.channel ?? target?.channels.find((c) => c.startsWith('stable-')) ?? target?.channels[0];
    if (target && channel) add(q.to, channel, 'target');
    else notes.push(`${q.to} is in no channel of ${q.arch}: nothing to mirror for it`);
  }
  const ordered = [...releases.values()].sort((a, b) => semver.compare(a.version, b.version));
  return {
    to: q.to,
    arch: q.arch,
    mode: q.mode,
    sources,
    releases: ordered,
    notes,
    imageSetConfiguration: {
      apiVersion: 'mirror.openshift.io/v2alpha1',
      kind: 'ImageSetConfiguration',
      mirror: {
        platform: {
          architectures: [q.arch],
          graph: true,
          // One entry a release: a range would bring every release between its ends.
          channels: ordered.map((r) => ({ name: r.channel, minVersion: r.version, maxVersion: r.version })),
        },
      },
    },
  };
}
