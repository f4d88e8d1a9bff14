// What the registry scraper keeps: each manifest it read (by digest, never read twice) and the releases
// each repository brought, so a scrape replaces its own releases and no one else's.
import type { Release } from '../graph/model.js';
import type { Problem } from '../validation/problems.js';
import type { Db } from './open.js';
import type { ReleaseRepository } from './releases.js';

/** The release-metadata document (`cincinnati-metadata-v0`) as an image carries it. */
export interface ReleaseMetadataDoc {
  kind: string;
  version: string;
  previous?: string[];
  next?: string[];
  metadata?: Record<string, string>;
}

export type ScannedManifest =
  | { digest: string; kind: 'release'; arch: string; metadata: ReleaseMetadataDoc }
  | { digest: string; kind: 'index'; arch: string; metadata: ReleaseMetadataDoc; members: string[] }
  | { digest: string; kind: 'other'; reason: string };

interface Row {
  digest: string;
  kind: ScannedManifest['kind'];
  arch: string | null;
  metadata: string | null;
  members: string | null;
  reason: string | null;
}

export interface ScrapeChanges {
  added: number;
  changed: number;
  unchanged: number;
  removed: number;
}

export class RegistryRepository {
  private readonly getStmt;
  private readonly putStmt;

  constructor(
    private readonly db: Db,
    private readonly releases: ReleaseRepository,
  ) {
    this.getStmt = db.prepare('SELECT * FROM registry_manifests WHERE digest = ?');
    this.putStmt = db.prepare(
      'INSERT OR REPLACE INTO registry_manifests (digest, kind, arch, metadata, members, reason, scanned_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
  }

  manifest(digest: string): ScannedManifest | undefined {
    const r = this.getStmt.get(digest) as Row | undefined;
    if (!r) return undefined;
    if (r.kind === 'other') return { digest, kind: 'other', reason: r.reason ?? '' };
    const metadata = JSON.parse(r.metadata ?? '{}') as ReleaseMetadataDoc;
    if (r.kind === 'release') return { digest, kind: 'release', arch: r.arch ?? '', metadata };
    return { digest, kind: 'index', arch: r.arch ?? '', metadata, members: JSON.parse(r.members ?? '[]') as string[] };
  }

  remember(m: ScannedManifest, at: string): void {
    this.putStmt.run(
      m.digest,
      m.kind,
      m.kind === 'other' ? null : m.arch,
      m.kind === 'other' ? null : JSON.stringify(m.metadata),
      m.kind === 'index' ? JSON.stringify(m.members) : null,
      m.kind === 'other' ? m.reason : null,
      at,
    );
  }

  /** The digest each tag of `repository` pointed at when last read. */
  tags(repository: string): Map<string, string> {
    const rows = this.db
      .prepare('SELECT tag, digest FROM registry_tags WHERE repository = ?')
      .all(repository) as Array<{
      tag: string;
      digest: string;
    }>;
    return new Map(rows.map((r) => [r.tag, r.digest]));
  }

  /** Replaces the remembered tags of `repository`. */
  rememberTags(repository: string, tags: Map<string, string>): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM registry_tags WHERE repository = ?').run(repository);
      const put = this.db.prepare('INSERT INTO registry_tags (repository, tag, digest) VALUES (?, ?, ?)');
      for (const [tag, digest] of tags) put.run(repository, tag, digest);
    })();
  }

  /** Whether an earlier scrape of `repository` stored releases (what a restart serves until it scrapes). */
  hasScraped(repository: string): boolean {
    return this.db.prepare('SELECT 1 FROM scraped_releases WHERE repository = ? LIMIT 1').get(repository) !== undefined;
  }

  /** How many manifests are remembered (metrics and tests). */
  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM registry_manifests').get() as { n: number }).n;
  }

  /**
   * Makes the releases of `repository` equal to `found`; the caller runs it in a transaction. A release another
   * source stored with a different payload is a conflict: the problems are returned and nothing may be kept.
   */
  replace(repository: string, found: Release[], at: string): { changes: ScrapeChanges; conflicts: Problem[] } {
    const mine = new Set(
      (
        this.db.prepare('SELECT arch, version FROM scraped_releases WHERE repository = ?').all(repository) as Array<{
          arch: string;
          version: string;
        }>
      ).map((r) => `${r.arch}/${r.version}`),
    );
    const conflicts: Problem[] = [];
    for (const r of found) {
      const stored = this.releases.get(r.arch, r.version);
      if (stored && stored.payload !== r.payload && !mine.has(`${r.arch}/${r.version}`))
        conflicts.push({
          file: repository,
          field: `${r.arch}/${r.version}`,
          message: `the image ${r.payload} differs from the payload ${stored.payload} another source stored`,
        });
    }
    const changes: ScrapeChanges = { added: 0, changed: 0, unchanged: 0, removed: 0 };
    if (conflicts.length) return { changes, conflicts };
    const keep = new Set<string>();
    const claim = this.db.prepare(
      'INSERT OR IGNORE INTO scraped_releases (repository, arch, version) VALUES (?, ?, ?)',
    );
    for (const r of found) {
      const key = `${r.arch}/${r.version}`;
      keep.add(key);
      const stored = this.releases.get(r.arch, r.version);
      // Another source's release of the same image: it stays that source's, never claimed (nor removed) here.
      if (stored && !mine.has(key)) {
        changes.unchanged += 1;
        continue;
      }
      // A version this repository now serves from another image (retagged): the payload changes with it.
      const retagged = mine.has(key) && stored !== undefined && stored.payload !== r.payload;
      if (retagged) this.releases.delete(r.arch, r.version);
      const outcome = this.releases.upsert(r, at);
      changes[retagged ? 'changed' : outcome] += 1;
      claim.run(repository, r.arch, r.version);
    }
    const drop = this.db.prepare('DELETE FROM scraped_releases WHERE repository = ? AND arch = ? AND version = ?');
    for (const key of mine) {
      if (keep.has(key)) continue;
      const [arch, version] = key.split('/') as [string, string];
      drop.run(repository, arch, version);
      if (this.releases.delete(arch, version)) changes.removed += 1;
    }
    return { changes, conflicts };
  }
}
