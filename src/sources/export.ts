// Writes the store back as a graph-data tree (the layout the importer reads), as a map of relative
// path to content; `cincy export` writes it to a folder and the admin API serves it as a tar.gz.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { pack } from 'tar-stream';
import { stringify } from '#yaml';
import type { StoredTree } from '../graph/graphDataTree.js';
import type { BlockedEdge, Channel, Release } from '../graph/model.js';
import { compareVersions, splitArch } from '../graph/version.js';
import { releaseRecord } from './releaseRecord.js';

/** The files of the tree, by path: what the store holds (Store.storedTree), in the layout the importer reads. */
export function exportTree({ input, schemaVersion, signatures }: StoredTree): Map<string, string | Buffer> {
  const files = new Map<string, string | Buffer>();
  // Phased rollouts are graph-data 2.x's: a store holding some exports a 2.x tree.
  const phased = input.channels.some((c) => c.phasing);
  const version = schemaVersion ?? '1.1.0';
  files.set('version', `${phased && version.startsWith('1.') ? '2.0.0' : version}\n`);
  for (const c of input.channels)
    files.set(`${c.internal ? 'internal-channels' : 'channels'}/${c.name}.yaml`, channelYaml(c));
  for (const e of input.blockedEdges) files.set(`blocked-edges/${e.id}.yaml`, blockedEdgeYaml(e));
  if (Object.keys(input.rawMetadata).length)
    files.set('raw/metadata.json', `${JSON.stringify(input.rawMetadata, null, 2)}\n`);
  for (const r of input.releases) files.set(`releases/${r.arch}/${r.version}.json`, releaseJson(r));
  for (const s of signatures)
    files.set(`signatures/sha256/${s.digest.slice('sha256:'.length)}/signature-${s.n}`, s.bytes);
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

const bySemver = (a: string, b: string): number =>
  compareVersions(splitArch(a).version, splitArch(b).version) || (a < b ? -1 : a > b ? 1 : 0);

function channelYaml(c: Channel): string {
  const doc: Record<string, unknown> = {};
  if (c.feeder) doc.feeder = c.feeder;
  doc.name = c.name;
  if (c.phasing?.rules.length) doc.phasedRollouts = c.phasing.rules;
  if (c.tombstones.length) doc.tombstones = [...c.tombstones].sort(bySemver);
  const starts = c.phasing?.starts ?? {};
  doc.versions = [...c.versions].sort(bySemver).map((v) => (starts[v] ? { name: v, start: starts[v] } : v));
  return stringify(doc);
}

function blockedEdgeYaml(e: BlockedEdge): string {
  const doc: Record<string, unknown> = { to: e.to, from: e.from };
  if (e.fixedIn !== undefined) doc.fixedIn = e.fixedIn;
  if (e.risk)
    Object.assign(doc, {
      url: e.risk.url,
      name: e.risk.name,
      message: e.risk.message,
      matchingRules: e.risk.matchingRules,
    });
  if (e.autoExtend !== undefined) doc.autoExtend = e.autoExtend;
  return stringify(doc);
}

export function releaseJson(r: Release): string {
  return `${JSON.stringify(releaseRecord(r), null, 1)}\n`;
}

/** A graph-data .tar.gz and its entity tag. */
export interface GraphDataTarball {
  bytes: Buffer;
  etag: string;
}

/**
 * The tree as a .tar.gz made in memory. Entries carry a fixed time and owner, so the bytes (and the
 * ETag) change only when the content does.
 */
export async function exportTarball(stored: StoredTree): Promise<GraphDataTarball> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on('data', (c: unknown) => void chunks.push(c as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    archive.on('end', resolve);
    archive.on('error', reject);
  });
  const dirs = new Set<string>();
  for (const [path, content] of exportTree(stored)) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!dirs.has(dir)) archive.entry({ name: `${dir}/`, type: 'directory', mtime: EPOCH, mode: 0o755 });
      dirs.add(dir);
    }
    archive.entry({ name: path, mtime: EPOCH, mode: 0o644 }, content);
  }
  archive.finalize();
  await done;
  const bytes = await promisify(gzip)(Buffer.concat(chunks));
  return { bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"` };
}

const EPOCH = new Date(0);
