// What the registry scraper keeps: each manifest it read (by digest, never read twice) and the releases
// each repository brought, so a scrape replaces its own releases and no one else's.
import type { Release } from '../graph/model.js';
import type { ReleaseMetadataDoc, ScannedManifest } from '../registry/scrapeMemory.js';
import type { Problem } from '../validation/problems.js';
import { insertRows, type Sql } from './sql.js';
import type { ReleaseRepository } from './releases.js';

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
  constructor(
    private readonly sql: Sql,
    private readonly releases: ReleaseRepository,
  ) {}

  async manifest(digest: string): Promise<ScannedManifest | undefined> {
    const r = await this.sql.get<Row>(
      'SELECT digest, kind, arch, metadata, members, reason FROM registry_manifests WHERE digest = ?',
      [digest],
    );
    if (!r) return undefined;
    if (r.kind === 'other') return { digest, kind: 'other', reason: r.reason ?? '' };
    const metadata = JSON.parse(r.metadata ?? '{}') as ReleaseMetadataDoc;
    if (r.kind === 'release') return { digest, kind: 'release', arch: r.arch ?? '', metadata };
    return { digest, kind: 'index', arch: r.arch ?? '', metadata, members: JSON.parse(r.members ?? '[]') as string[] };
  }

  async remember(m: ScannedManifest, at: string): Promise<void> {
    await this.sql.run(
      'INSERT INTO registry_manifests (digest, kind, arch, metadata, members, reason, scanned_at) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (digest) DO UPDATE SET kind = excluded.kind, arch = excluded.arch, ' +
        'metadata = excluded.metadata, members = excluded.members, reason = excluded.reason, scanned_at = excluded.scanned_at',
      [
        m.digest,
        m.kind,
        m.kind === 'other' ? null : m.arch,
        m.kind === 'other' ? null : JSON.stringify(m.metadata),
        m.kind === 'index' ? JSON.stringify(m.members) : null,
        m.kind === 'other' ? m.reason : null,
        at,
      ],
    );
  }

  /**
   * Forgets the manifests no remembered tag points at any more, except those read since `since` (what a
   * scrape under way or just failed has read is kept for the next one): the cache never outgrows the tags.
   */
  async prune(since: string): Promise<number> {
    return this.sql.run(
      'DELETE FROM registry_manifests WHERE scanned_at < ? AND digest NOT IN (SELECT digest FROM registry_tags)',
      [since],
    );
  }

  /** The digest each tag of `repository` pointed at when last read. */
  async tags(repository: string): Promise<Map<string, string>> {
    const rows = await this.sql.all<{ tag: string; digest: string }>(
      'SELECT tag, digest FROM registry_tags WHERE repository = ?',
      [repository],
    );
    return new Map(rows.map((r) => [r.tag, r.digest]));
  }

  /** Replaces the remembered tags of `repository`; the caller runs it in a transaction. */
  async rememberTags(repository: string, tags: Map<string, string>): Promise<void> {
    const before = await this.tags(repository);
    if (before.size === tags.size && [...tags].every(([tag, digest]) => before.get(tag) === digest)) return;
    await this.sql.run('DELETE FROM registry_tags WHERE repository = ?', [repository]);
    await insertRows(
      this.sql,
      'registry_tags',
      ['repository', 'tag', 'digest'],
      [...tags].map(([tag, digest]) => [repository, tag, digest]),
    );
  }

  /** Whether an earlier scrape of `repository` stored releases (what a restart serves until it scrapes). */
  async hasScraped(repository: string): Promise<boolean> {
    return (
      (await this.sql.get('SELECT 1 AS one FROM scraped_releases WHERE repository = ? LIMIT 1', [repository])) !==
      undefined
    );
  }

  /**
   * Makes the releases of `repository` equal to `found`; the caller runs it in a transaction. A release another
   * source stored with a different payload is a conflict: the problems are returned and nothing may be kept.
   */
  async replace(
    repository: string,
    found: Release[],
    at: string,
  ): Promise<{ changes: ScrapeChanges; conflicts: Problem[] }> {
    const mine = new Set(
      (
        await this.sql.all<{ arch: string; version: string }>(
          'SELECT arch, version FROM scraped_releases WHERE repository = ?',
          [repository],
        )
      ).map((r) => `${r.arch}/${r.version}`),
    );
    const stored = new Map((await this.releases.all()).map((r) => [`${r.arch}/${r.version}`, r]));
    const conflicts: Problem[] = [];
    for (const r of found) {
      const s = stored.get(`${r.arch}/${r.version}`);
      if (s && s.payload !== r.payload && !mine.has(`${r.arch}/${r.version}`))
        conflicts.push({
          file: repository,
          field: `${r.arch}/${r.version}`,
          message: `the image ${r.payload} differs from the payload ${s.payload} another source stored`,
        });
    }
    const changes: ScrapeChanges = { added: 0, changed: 0, unchanged: 0, removed: 0 };
    if (conflicts.length) return { changes, conflicts };
    const keep = new Set<string>();
    const claims: string[][] = [];
    const writes: Release[] = [];
    const retagged = new Set<string>();
    for (const r of found) {
      const key = `${r.arch}/${r.version}`;
      keep.add(key);
      const s = stored.get(key);
      // Another source's release of the same image: it stays that source's, never claimed (nor removed) here.
      if (s && !mine.has(key)) {
        changes.unchanged += 1;
        continue;
      }
      // A version this repository now serves from another image (retagged): the payload changes with it.
      if (mine.has(key) && s !== undefined && s.payload !== r.payload) retagged.add(key);
      writes.push(r);
      if (!mine.has(key)) claims.push([repository, r.arch, r.version]);
    }
    const outcomes = await this.releases.upsertAll(writes, at, stored);
    writes.forEach((r, i) => (changes[retagged.has(`${r.arch}/${r.version}`) ? 'changed' : outcomes[i]!] += 1));
    await insertRows(
      this.sql,
      'scraped_releases',
      ['repository', 'arch', 'version'],
      claims,
      'ON CONFLICT (repository, arch, version) DO NOTHING',
    );
    for (const key of mine) {
      if (keep.has(key)) continue;
      const [arch, version] = key.split('/') as [string, string];
      await this.sql.run('DELETE FROM scraped_releases WHERE repository = ? AND arch = ? AND version = ?', [
        repository,
        arch,
        version,
      ]);
      if (await this.releases.delete(arch, version)) changes.removed += 1;
    }
    return { changes, conflicts };
  }
}
