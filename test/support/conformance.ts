// Shared by the conformance tests: where the fixtures are, and the comparison the public captures allow.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { canonicalJson } from '../../src/canonicalJson.js';

export const CONFORMANCE_DIR = resolve(
  process.env.CINCY_CONFORMANCE_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'conformance'),
);

/** True when the fixtures are there; under CI=true their absence is a failure, never a skip. */
export function conformanceAvailable(): boolean {
  if (existsSync(CONFORMANCE_DIR)) return true;
  if (process.env.CI === 'true')
    throw new Error(`conformance fixtures missing at ${CONFORMANCE_DIR} (CI=true: nothing may skip)`);
  console.warn(`\n*** SKIPPING conformance tests: ${CONFORMANCE_DIR} not found (set CINCY_CONFORMANCE_DIR) ***\n`);
  return false;
}

export function realSets(): string[] {
  if (!existsSync(CONFORMANCE_DIR)) return [];
  return readdirSync(CONFORMANCE_DIR)
    .filter((d) => d.startsWith('real-'))
    .sort();
}

interface Doc {
  nodes: Array<{ version: string; payload: string; metadata?: Record<string, string> }>;
  edges?: Array<[number, number]>;
  conditionalEdges?: Array<{
    edges: Array<{ from: string; to: string }>;
    risks: Array<{ name: string; url: string; message: string; matchingRules: unknown }>;
  }>;
}

const canon = canonicalJson;

const sortedRecord = <T>(r: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)));

/**
 * The views two graphs of a channel are compared on: nodes, their metadata, edges, and the risk
 * names of each conditional pair in their served order; and the defects a served graph must not have (a pair in two entries, a
 * risk named twice in one).
 */
export function normalise(g: Doc) {
  const nodes = new Set<string>();
  const channels: Record<string, string> = {};
  const urls: Record<string, string | undefined> = {};
  const metadata: Record<string, string> = {};
  for (const n of g.nodes) {
    nodes.add(`${n.version} ${n.payload}`);
    const md = n.metadata ?? {};
    // Every key, the computed ones too (channels, previous.remove_regex joined in the files' read order).
    metadata[n.version] = canon(md);
    // As served, in order: the protocol fixes the order of the channel list.
    channels[n.version] = md['io.openshift.upgrades.graph.release.channels'] ?? '';
    urls[n.version] = md.url;
  }
  const edges = new Set((g.edges ?? []).map(([a, b]) => `${g.nodes[a]!.version} -> ${g.nodes[b]!.version}`));
  const cond: Record<string, string[]> = {};
  const risks: Record<string, Set<string>> = {};
  const duplicates: string[] = [];
  for (const ce of g.conditionalEdges ?? []) {
    const names = ce.risks.map((r) => r.name);
    if (new Set(names).size !== names.length) duplicates.push(`risk named twice: ${names.join(',')}`);
    for (const r of ce.risks)
      (risks[r.name] ??= new Set()).add(canon({ url: r.url, message: r.message, matchingRules: r.matchingRules }));
    for (const e of ce.edges) {
      const k = `${e.from} -> ${e.to}`;
      if (cond[k]) duplicates.push(`pair in two entries: ${k}`);
      cond[k] = [...(cond[k] ?? []), ...names]; // in the served order, which clusters show
    }
  }
  const overlap = [...edges].filter((e) => cond[e]);
  return {
    nodes: [...nodes].sort(),
    channels: sortedRecord(channels),
    urls: sortedRecord(urls),
    metadata: sortedRecord(metadata),
    edges: [...edges].sort(),
    cond: sortedRecord(cond),
    risks: Object.fromEntries(
      Object.entries(risks)
        .map(([k, v]) => [k, [...v].sort()])
        .sort(),
    ),
    overlap,
    duplicates,
  };
}

export function expectedChannels(set: string): Array<{ channel: string; doc: Doc }> {
  const dir = join(CONFORMANCE_DIR, set, 'expected');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ channel: f.slice(0, -5), doc: JSON.parse(readFileSync(join(dir, f), 'utf8')) as Doc }));
}
