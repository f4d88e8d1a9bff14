// A graph-data tree as values: what the reader (sources/graphData.ts) makes of a tree's files and the
// store imports, and what the store holds that export (sources/export.ts) writes back as a tree. It
// sits below the reader and the store, so neither imports the other for it.
import type { RawMetadata } from '../schemas/graphData.js';
import type { BlockedEdge, Channel, GraphInput, Release } from './model.js';

/** A signature file of the tree, not yet verified. */
export interface TreeSignature {
  file: string;
  digest: string; // sha256:<hex>
  bytes: Buffer;
}

/** A tree read whole and valid. */
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

/** What export writes as a tree, read from the store in one transaction. */
export interface StoredTree {
  input: GraphInput;
  /** The schema version of the last import; undefined when nothing was imported. */
  schemaVersion: string | undefined;
  /** Signature `n` of a payload digest, as the store holds it. */
  signatures: Array<{ digest: string; n: number; bytes: Buffer }>;
}
