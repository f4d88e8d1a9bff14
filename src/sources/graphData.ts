// Reads a graph-data tree (the openshift/cincinnati-graph-data layout plus release records) from a
// directory or a .tar.gz, validating every file. A tree with any error yields no tree at all: the
// caller keeps what it had. Every problem names the file and the field.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlockedEdge, Channel, Release } from '../graph/model.js';
import { ARCHES, type RawMetadata } from '../schemas/graphData.js';
import type { Problem } from '../validation/problems.js';
import { extractTarball } from './tarball.js';
import { readBlockedEdge, readChannel, readRawMetadata, readRelease, readSchemaVersion } from './treeFiles.js';
import { TreeReader } from './treeReader.js';
import { readSignatures, type TreeSignature } from './treeSignatures.js';

export interface GraphDataTree {
  schemaVersion: string;
  signatures: TreeSignature[];
  releases: Release[];
  channels: Channel[];
  blockedEdges: BlockedEdge[];
  rawMetadata: RawMetadata;
  /** sha256 over every file read, so an unchanged tree is not imported twice. */
  contentHash: string;
}

export interface ReadResult {
  tree: GraphDataTree | undefined;
  errors: Problem[];
  warnings: Problem[];
}

export type ReadProgress = (done: number, total: number) => void;

/** Reads a directory or a `.tar.gz` of one. */
export async function readGraphData(path: string, onProgress?: ReadProgress): Promise<ReadResult> {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return failed(path, code === 'ENOENT' ? 'no such file or directory' : `cannot read: ${(err as Error).message}`);
  }
  if (st.isDirectory()) return readGraphDataDir(path, onProgress);
  if (!/\.(tar\.gz|tgz)$/.test(path)) return failed(path, 'expected a directory or a .tar.gz file');
  const dir = mkdtempSync(join(tmpdir(), 'cincy-graph-data-'));
  try {
    const problem = await extractTarball(path, dir);
    if (problem) return failed(path, problem);
    const entries = readdirSync(dir);
    // A tarball may hold the tree at its top or inside a single folder.
    const only = entries.length === 1 ? join(dir, entries[0]!) : undefined;
    const root = only && statSync(only).isDirectory() && !entries.includes('version') ? only : dir;
    return readGraphDataDir(root, onProgress);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function failed(file: string, message: string): ReadResult {
  return { tree: undefined, errors: [{ file, field: '-', message }], warnings: [] };
}

function readGraphDataDir(root: string, onProgress?: ReadProgress): ReadResult {
  const r = new TreeReader(root);
  const schemaVersion = readSchemaVersion(r);

  const channelFiles = r.list('channels', ['.yaml', '.yml']);
  const internalFiles = r.list('internal-channels', ['.yaml', '.yml']);
  const blockedFiles = r.list('blocked-edges', ['.yaml', '.yml']);
  const archDirs = r.dirs('releases');
  // Each folder of releases/ is read once: its records here, the signatures beside them later.
  const releaseFolders = archDirs.map((arch) => ({ arch, files: r.list(join('releases', arch), ['']) }));
  const releaseFiles = releaseFolders.flatMap(({ arch, files }) =>
    files.filter((f) => f.endsWith('.json')).map((f) => ({ arch, f })),
  );
  const total = channelFiles.length + internalFiles.length + blockedFiles.length + releaseFiles.length + 1;
  let done = 0;
  const tick = (): void => {
    done += 1;
    if (onProgress && (done % 50 === 0 || done === total)) onProgress(done, total);
  };

  const channels: Channel[] = [];
  for (const [files, internal] of [
    [channelFiles, false],
    [internalFiles, true],
  ] as const) {
    const seen = new Map<string, string>();
    for (const f of files) {
      const c = readChannel(r, f, internal);
      tick();
      if (!c) continue;
      const other = seen.get(c.name);
      if (other) r.error(r.rel(f), 'name', `duplicate channel name '${c.name}' (also in ${other})`);
      else seen.set(c.name, r.rel(f));
      channels.push(c);
    }
  }

  const blockedEdges: BlockedEdge[] = [];
  for (const f of blockedFiles) {
    const b = readBlockedEdge(r, f);
    tick();
    if (b) blockedEdges.push(b);
  }

  const releases: Release[] = [];
  for (const arch of archDirs) {
    if (!(ARCHES as readonly string[]).includes(arch)) {
      r.error(`releases/${arch}`, '-', `unknown architecture '${arch}' (known: ${ARCHES.join(', ')})`);
    }
  }
  for (const { arch, f } of releaseFiles) {
    const rel = readRelease(r, f, arch);
    tick();
    if (rel) releases.push(rel);
  }

  const rawMetadata = readRawMetadata(r);
  tick();
  const signatures = readSignatures(r, releases, releaseFolders);

  const tree =
    r.errors.length === 0 && schemaVersion !== undefined
      ? { schemaVersion, releases, channels, blockedEdges, rawMetadata, signatures, contentHash: r.digest() }
      : undefined;
  return { tree, errors: r.errors, warnings: r.warnings };
}
