// Release records added and deleted through the admin API, validated as a tree's release files are.
import { ApiError } from '../../errors.js';
import type { ReleaseRecord } from '../../schemas/graphData.js';
import { releaseRecord } from '../../sources/releaseRecord.js';
import type { Problem } from '../../validation/problems.js';
import { checkReleaseDocument, releaseFromRecord } from '../../validation/releaseRecords.js';
import { invalidRequest, type Actor, type AuditedWrites } from './writes.js';

/** What a `POST /api/v1/releases` did with the records it was sent. */
export interface ReleaseCounts {
  added: number;
  updated: number;
  unchanged: number;
}

export class ReleaseWrites {
  constructor(private readonly writes: AuditedWrites) {}

  /**
   * Stores one release record or a list of them; all or nothing. `counts` says how many were new,
   * changed (metadata) or already stored as is. The same release with another payload is a conflict.
   */
  addReleases(body: unknown, actor: Actor): Promise<{ counts: ReleaseCounts; releases: ReleaseRecord[] }> {
    const records: unknown[] = Array.isArray(body) ? body : [body];
    if (records.length === 0) throw new ApiError('invalid_request', 'body: an empty list holds no release');
    const problems: Problem[] = [];
    const checked = records.map((rec, i) =>
      checkReleaseDocument(rec, records.length > 1 ? `body[${i}]` : 'body', problems),
    );
    if (problems.length) throw invalidRequest(problems);
    const releases = checked.map((rec) => releaseFromRecord(rec!));
    return this.writes.run(async (tx, at) => {
      const counts: ReleaseCounts = { added: 0, updated: 0, unchanged: 0 };
      for (const r of releases) {
        const stored = await tx.releases.get(r.arch, r.version);
        if (stored && stored.payload !== r.payload) {
          throw new ApiError(
            'conflict',
            `release ${r.version} (${r.arch}) is stored with payload ${stored.payload}; refusing ${r.payload}`,
          );
        }
        const outcome = await tx.releases.upsert(r, at);
        const action = outcome === 'added' ? 'release.add' : 'release.update';
        if (outcome !== 'unchanged')
          await this.writes.record(tx, at, actor, action, `${r.arch}/${r.version}`, stored, r);
        counts[outcome === 'changed' ? 'updated' : outcome]++;
      }
      return {
        result: { counts, releases: releases.map(releaseRecord) },
        changed: counts.added + counts.updated > 0,
      };
    });
  }

  /** Deletes a release; returns its record. */
  deleteRelease(arch: string, version: string, actor: Actor, reason: string | null): Promise<ReleaseRecord> {
    return this.writes.run(async (tx, at) => {
      const before = await tx.releases.get(arch, version);
      if (!before) throw new ApiError('does_not_exist', `no release ${version} for ${arch}`);
      await tx.releases.delete(arch, version);
      await this.writes.record(tx, at, actor, 'release.delete', `${arch}/${version}`, before, null, reason);
      return { result: releaseRecord(before), changed: true };
    });
  }
}
