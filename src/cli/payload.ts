// `cincy payload ls|extract`: the release payloads of the payload store (the folder the agent reads), listed,
// and one copied out as `oc adm release extract --to` does. Their options are payloadCommands.ts's.
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadPayload, type Payload } from '../payload/load.js';
import { PayloadStore } from '../payload/store.js';
import { recordTable } from './table.js';

/** What a payload holds, counted. */
export function summary(p: Payload): { manifests: number; operators: number; runlevels: number[] } {
  const operators = new Set(
    p.manifests.flatMap((m) => m.docs.filter((d) => d.kind === 'ClusterOperator').map((d) => d.metadata.name)),
  );
  return {
    manifests: p.manifests.length,
    operators: operators.size,
    runlevels: [...new Set(p.manifests.map((m) => m.runlevel))].sort((a, b) => a - b),
  };
}

export function list(o: { store: string; output: string }): number {
  const store = new PayloadStore(o.store);
  const root = join(store.dir, 'sha256');
  const hexes = existsSync(root)
    ? readdirSync(root)
        .filter((n) => /^[0-9a-f]{64}$/.test(n))
        .sort()
    : [];
  const rows: Array<Record<string, unknown>> = [];
  let code = 0;
  for (const hex of hexes) {
    try {
      const p = loadPayload(join(root, hex));
      const s = summary(p);
      rows.push({
        digest: `sha256:${hex}`,
        version: p.version,
        manifests: s.manifests,
        operators: s.operators,
        runlevels: s.runlevels.length,
      });
    } catch (err) {
      process.stderr.write(`cincy: sha256:${hex}: ${(err as Error).message}\n`);
      code = 1;
    }
  }
  if (o.output === 'json') process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else if (!hexes.length) process.stdout.write(`no payloads in ${store.dir}\n`);
  else process.stdout.write(recordTable(rows, ['digest', 'version', 'manifests', 'operators', 'runlevels']));
  return code;
}

export function extract(image: string, o: { to: string; store: string }): number {
  const store = new PayloadStore(o.store);
  if (!store.has(image)) {
    store.digestOf(image); // a tag-only pull spec says so first
    throw new Error(`${image}: not in the payload store ${store.dir} (cincy payload create, in a clone)`);
  }
  const p = loadPayload(store.pathOf(image));
  mkdirSync(o.to, { recursive: true });
  cpSync(store.pathOf(image), o.to, { recursive: true });
  process.stdout.write(
    `extracted ${p.version}: ${p.manifests.length} manifests, release-metadata and image-references to ${o.to}\n`,
  );
  return 0;
}
