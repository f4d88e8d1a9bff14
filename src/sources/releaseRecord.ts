// A release as the release record (releases/ARCH/VERSION.json of a graph-data tree) it was read from: what
// the export writes and the admin API answers.
import type { Release } from '../graph/model.js';
import type { Arch, ReleaseRecord } from '../schemas/graphData.js';

/** A release as the release record it was read from. */
export function releaseRecord(r: Release): ReleaseRecord {
  return {
    kind: 'cincinnati-metadata-v0',
    version: r.version,
    previous: r.previous,
    next: r.next,
    metadata: r.metadata,
    payload: r.payload,
    architecture: r.arch as Arch,
  };
}
