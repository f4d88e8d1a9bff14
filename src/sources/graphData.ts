// Reads a graph-data tree (the openshift/cincinnati-graph-data layout plus release records) from a
// directory, a .tar.gz (read in memory, tarball.ts) or any other source of its files, validating every
// file. A tree with any error yields no tree at all: the caller keeps what it had. Every problem names
// the file and the field.
import { statSync } from 'node:fs';
import type { GraphDataTree } from '../graph/graphDataTree.js';
import type { BlockedEdge, Channel, Release } from '../graph/model.js';
import { ARCHES } from '../schemas/graphData.js';
import type { Problem } from '../validation/problems.js';
import { FolderTree } from './folderTree.js';
import {
  readBlockedEdge,
  readChannels,
  readRawMetadata,
  readRelease,
  readSchemaVersion,
  schemaMajor,
} from './treeFiles.js';
import { TreeReader } from './treeReader.js';
import { MemoryTree } from './memoryTree.js';
import { snapshotFolder, treeFingerprint } from './treeFingerprint.js';
import { readSignatures } from './treeSignatures.js';
import type { TreeSource } from './treeSource.js';

export interface ReadResult {
  tree: GraphDataTree | undefined;
  errors: Problem[];
  warnings: Problem[];
  /** The tree's fingerprint on disk (treeFingerprint.ts) when it was the same before and after the read. */
  fingerprint?: string;
}

export type ReadProgress = (done: number, total: number) => void;

/**
 * Reads a directory or a `.tar.gz` of one, with its fingerprint: a folder's files read once when it allows
 * (snapshotFolder), else file by file, with the fingerprint only when the tree did not change meanwhile.
 */
export async function readGraphData(path: string, onProgress?: ReadProgress): Promise<ReadResult> {
  const snapshot = snapshotFolder(path);
  if (snapshot) {
    const read = readTree(new MemoryTree(snapshot.files, snapshot.folders), onProgress);
    return { ...read, fingerprint: snapshot.fingerprint };
  }
  const before = treeFingerprint(path);
  const read = await readAt(path, onProgress);
  const after = before && treeFingerprint(path);
  return before && before === after ? { ...read, fingerprint: before } : read;
}

async function readAt(path: string, onProgress?: ReadProgress): Promise<ReadResult> {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return failed(path, code === 'ENOENT' ? 'no such file or directory' : `cannot read: ${(err as Error).message}`);
  }
  if (st.isDirectory()) return readTree(new FolderTree(path), onProgress);
  if (!/\.(tar\.gz|tgz)$/.test(path)) return failed(path, 'expected a directory or a .tar.gz file');
  // Loaded for a tarball only (it brings a tar reader): a folder, the common case, does without.
  const unpacked = await (await import('./tarball.js')).readTarball(path);
  if ('problem' in unpacked) return failed(path, unpacked.problem);
  return readTree(unpacked.tree, onProgress);
}

function failed(file: string, message: string): ReadResult {
  return { tree: undefined, errors: [{ file, field: '-', message }], warnings: [] };
}

/** Reads the tree whose files `source` holds. */
export function readTree(source: TreeSource, onProgress?: ReadProgress): ReadResult {
  const r = new TreeReader(source);
  const schemaVersion = r.attempt('version', () => readSchemaVersion(r));

  const channelFiles = r.list('channels', ['.yaml', '.yml']);
  const internalFiles = r.list('internal-channels', ['.yaml', '.yml']);
  const blockedFiles = r.list('blocked-edges', ['.yaml', '.yml']);
  const archDirs = r.dirs('releases');
  // Each folder of releases/ is read once: its records here, the signatures beside them later.
  const releaseFolders = archDirs.map((arch) => ({ arch, files: r.list(`releases/${arch}`, ['']) }));
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
      const read = r.attempt(f, () => readChannels(r, f, internal, schemaMajor(schemaVersion))) ?? [];
      tick();
      for (const c of read) {
        const other = seen.get(c.name);
        if (other) r.error(f, 'name', `duplicate channel name '${c.name}' (also in ${other})`);
        else seen.set(c.name, f);
        channels.push(c);
      }
    }
  }

  const blockedEdges: BlockedEdge[] = [];
  for (const f of blockedFiles) {
    const b = r.attempt(f, () => readBlockedEdge(r, f));
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
    const rel = r.attempt(f, () => readRelease(r, f, arch));
    tick();
    if (rel) releases.push(rel);
  }

  const rawMetadata = r.attempt('raw/metadata.json', () => readRawMetadata(r)) ?? {};
  tick();
  const signatures = r.attempt('signatures', () => readSignatures(r, releases, releaseFolders)) ?? [];

  const tree =
    r.errors.length === 0 && schemaVersion !== undefined
      ? { schemaVersion, releases, channels, blockedEdges, rawMetadata, signatures, contentHash: r.digest() }
      : undefined;
  return { tree, errors: r.errors, warnings: r.warnings };
}
