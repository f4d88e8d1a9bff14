// `cincy adm upgrade accept [--replace] [--clear] RISK[,-RISK…]`, as `oc adm upgrade accept`
// (pkg/cli/admin/upgrade/accept): changes spec.desiredUpdate.acceptRisks and nothing else. Names are added
// to the list (kept in their order, new ones after them in name order), `-Name` removes one, --replace
// starts from an empty list, --clear empties it. A cluster whose ClusterVersion schema has no acceptRisks
// (the accept-risks feature gate off) drops the field; that is said, never reported as done.
import type { ClusterClient } from '../kubeconfig.js';
import { patchClusterVersion, readClusterVersion } from './cluster.js';

export interface AcceptOptions {
  replace?: boolean;
  clear?: boolean;
}

/** What the command line asks: the names to add and to remove. Throws oc's usage errors. */
export function parseAcceptArgs(args: string[], o: AcceptOptions): { add: Set<string>; remove: Set<string> } {
  if (o.clear && o.replace) throw new Error('--clear and --replace are mutually exclusive');
  if (o.clear && args.length) throw new Error(`unknown command "${args.join(' ')}"`);
  if (!o.clear && args.length === 0) throw new Error('no positional arguments given');
  if (args.length > 1) throw new Error('multiple positional arguments given');
  const add = new Set<string>();
  const remove = new Set<string>();
  for (const part of args[0]?.split(',') ?? []) {
    const name = part.trim();
    if (name === '' || name === '-') throw new Error(`illegal risk "${name}"`);
    if (name.startsWith('-')) remove.add(name.slice(1));
    else add.add(name);
  }
  const both = [...add].filter((n) => remove.has(n)).sort();
  if (both.length) throw new Error(`requested risks with both Risk and -Risk: ${both.join(',')}`);
  if (o.replace && remove.size) throw new Error("The prefix '-' on risks is not allowed if --replace is specified");
  return { add, remove };
}

/** The accepted risks after the request. */
export function acceptedAfter(existing: string[], o: AcceptOptions, add: Set<string>, remove: Set<string>): string[] {
  if (o.clear) return [];
  const kept = o.replace ? [] : existing.filter((n) => !remove.has(n));
  const added = [...add].sort().filter((n) => !kept.includes(n));
  return [...kept, ...added];
}

/** Changes the accepted risks; returns the line oc prints. */
export async function acceptRisks(cluster: ClusterClient, args: string[], o: AcceptOptions): Promise<string> {
  const { add, remove } = parseAcceptArgs(args, o);
  const cv = await readClusterVersion(cluster);
  const existing = (cv.spec.desiredUpdate?.acceptRisks ?? []).map((r) => r.name);
  const next = acceptedAfter(existing, o, add, remove);
  if (next.length === existing.length && next.every((n, i) => n === existing[i]))
    return 'info: Accept risks are not changed';
  const acceptRisks = next.length ? next.map((name) => ({ name })) : null;
  const updated = await patchClusterVersion(cluster, { spec: { desiredUpdate: { acceptRisks } } });
  const stored = (updated.spec.desiredUpdate?.acceptRisks ?? []).map((r) => r.name);
  if (next.length && stored.length === 0) {
    // Leave no empty desiredUpdate behind where there was none.
    if (!cv.spec.desiredUpdate) await patchClusterVersion(cluster, { spec: { desiredUpdate: null } });
    throw new Error(
      'the cluster dropped spec.desiredUpdate.acceptRisks: its ClusterVersion schema has no such field (the ClusterUpdateAcceptRisks feature gate is off on this cluster)',
    );
  }
  return `info: Accept risks are [${next.join(', ')}]`;
}
