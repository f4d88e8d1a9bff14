// Release images from a registry repository, read as the reference graph-builder reads them: every tag's
// manifest, the file release-manifests/release-metadata found in the image's layers (top-most first), the
// architecture from the image configuration (an index of several images is a `multi` release), and
// `<registry>/<repository>@<manifest digest>` as the payload. What a manifest holds is remembered by digest,
// so a rescan reads no blob twice.
import pLimit from 'p-limit';
import { RE2JS } from 're2js';
import type { Release } from '../graph/model.js';
import { ARCHES } from '../schemas/graphData.js';
import { RegistryClient, RegistryError } from '../registry/client.js';
import { isTarLayer, LayerError, walkLayer } from '../registry/layers.js';
import { RegistryManifestError, type Descriptor } from '../registry/manifest.js';
import { describe, pullSpec, repositoryName } from '../registry/reference.js';
import type { ManifestCache, ReleaseMetadataDoc, ScannedManifest } from '../registry/scrapeMemory.js';
import { checkReleaseDocument, releaseFromRecord } from '../validation/releaseRecords.js';
import type { Problem } from '../validation/problems.js';

export const RELEASE_METADATA = 'release-manifests/release-metadata';

/**
 * The tags sigstore (cosign, containers/image) gives what it attaches to an image when the registry has no
 * referrers API: `sha256-<the image's digest>.sig` for a signature, `.att` for an attestation, `.sbom` for
 * an SBOM. oc-mirror v2 copies the release images' signatures so, beside them in the mirror.
 */
const SIGSTORE_ATTACHMENT_TAG = /^sha256-[0-9a-f]{64}\.(?:sig|att|sbom)$/;

/** Whether a tag is named as a sigstore attachment of an image in the same repository. */
export function isSigstoreAttachmentTag(tag: string): boolean {
  return SIGSTORE_ATTACHMENT_TAG.test(tag);
}
const MAX_METADATA_BYTES = 1024 * 1024;

export interface ScrapeOptions {
  /** RE2 pattern a tag must match to be read (unanchored, as a search). */
  tagFilter?: string;
  /** Manifests and blobs read at once. */
  concurrency?: number;
  /** The clock time written with each remembered manifest. */
  now?: () => string;
  onProgress?: (done: number, total: number) => void;
  /**
   * Ask the registry which manifest every tag points at, seen before or not (a HEAD each). Otherwise a tag
   * seen before is taken to point where it did, and costs no request.
   */
  checkKnownTags?: boolean;
  /** More tags than this fail the scrape (default 100,000). */
  maxTags?: number;
  /** Ends the scrape, every request in flight included (the scrape's deadline). */
  signal?: AbortSignal;
}

export interface ScrapeResult {
  releases: Release[];
  /** Problems that make the scrape unusable (the caller keeps the last good graph). */
  errors: Problem[];
  /**
   * Tags left out: not a release image, a sigstore signature (or other attachment) beside one, invalid
   * release metadata, a member of a multi-arch release, filtered out, of an unknown architecture, deleted
   * while the scrape ran, a name that breaks the tag grammar.
   */
  skipped: {
    invalidTag: number;
    notRelease: number;
    signature: number;
    invalid: number;
    member: number;
    filtered: number;
    unknownArch: number;
    vanished: number;
  };
  tags: number;
  /** Manifests whose layers were read in this scrape (not remembered from an earlier one). */
  manifestsRead: number;
  warnings: Problem[];
}

/** Compiles a tag filter, or says what is wrong with it. */
export function compileTagFilter(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    throw new Error(`'${pattern}' is not an RE2 pattern: ${(err as Error).message}`);
  }
}

export async function scrapeReleases(
  client: RegistryClient,
  cache: ManifestCache,
  opts: ScrapeOptions = {},
): Promise<ScrapeResult> {
  const now = opts.now ?? ((): string => new Date().toISOString());
  const started = now();
  try {
    return await scrape(client, cache, opts, now);
  } finally {
    // Whether the scrape held or not, manifests no tag points at any more are forgotten (a registry that
    // presents new digests every time cannot grow the store without end); a failure to do it waits for the next.
    await cache.prune(started).catch(() => {});
  }
}

async function scrape(
  client: RegistryClient,
  cache: ManifestCache,
  opts: ScrapeOptions,
  now: () => string,
): Promise<ScrapeResult> {
  const repo = describe(client.ref);
  const filter = opts.tagFilter ? compileTagFilter(opts.tagFilter) : undefined;
  const result: ScrapeResult = {
    releases: [],
    errors: [],
    warnings: [],
    skipped: {
      invalidTag: 0,
      notRelease: 0,
      signature: 0,
      invalid: 0,
      member: 0,
      filtered: 0,
      unknownArch: 0,
      vanished: 0,
    },
    tags: 0,
    manifestsRead: 0,
  };
  const signal = opts.signal;
  const listed = await client.tags({ maxTags: opts.maxTags, signal });
  result.skipped.invalidTag = listed.invalidCount;
  if (listed.invalidCount)
    result.warnings.push({
      file: repo,
      field: 'tags',
      message: `${listed.invalidCount} name(s) that are not tags were left out: ${listed.invalid.join(', ')}`,
    });
  const allTags = listed.tags;
  const tags = filter ? allTags.filter((t) => filter.matcher(t).find()) : allTags;
  result.skipped.filtered = allTags.length - tags.length;
  result.tags = tags.length;

  const key = repositoryName(client.ref);
  const known = await cache.tags(key);
  const limit = pLimit(opts.concurrency ?? 16);
  let done = 0;
  const scans = Promise.all(
    tags.map((tag) =>
      limit(async () => {
        const seen = opts.checkKnownTags ? undefined : known.get(tag);
        const m = await scanTag(
          client,
          cache,
          tag,
          seen,
          known.has(tag),
          now,
          signal,
          () => (result.manifestsRead += 1),
        );
        opts.onProgress?.(++done, tags.length);
        return m && { tag, m };
      }),
    ),
  );
  // The first failure ends the scrape: what is still queued is not fetched in the background.
  const scanned = await scans
    .catch((err: unknown) => {
      limit.clearQueue();
      throw err;
    })
    .then((all) => all.filter((x) => x !== undefined));
  result.skipped.vanished = tags.length - scanned.length;
  await cache.rememberTags(key, new Map(scanned.filter(({ m }) => m.digest).map(({ tag, m }) => [tag, m.digest])));

  // An image that is a member of a multi-arch release tagged in the same scrape is that release, not another.
  const members = new Set(scanned.flatMap(({ m }) => (m.kind === 'index' ? m.members : [])));
  const byRelease = new Map<string, { tag: string; digest: string }>();
  const file = (tag: string): string => `${repo}:${tag}`;
  for (const { tag, m } of scanned) {
    if (m.kind === 'other') {
      // A signature beside a release image is where a mirror keeps it (as oc-mirror does): counted, not warned
      // about. Named so but holding a release image, a tag is read as one.
      if (isSigstoreAttachmentTag(tag)) {
        result.skipped.signature += 1;
        continue;
      }
      result.skipped.notRelease += 1;
      result.warnings.push({ file: file(tag), field: '-', message: `not a release image: ${m.reason}` });
      continue;
    }
    if (members.has(m.digest)) {
      result.skipped.member += 1;
      continue;
    }
    if (!(ARCHES as readonly string[]).includes(m.arch)) {
      result.skipped.unknownArch += 1;
      result.warnings.push({ file: file(tag), field: 'architecture', message: `'${m.arch}' is not a known arch` });
      continue;
    }
    const key = `${m.arch}/${m.metadata.version}`;
    const seen = byRelease.get(key);
    if (seen) {
      if (seen.digest !== m.digest)
        result.errors.push({
          file: file(tag),
          field: 'version',
          message: `${m.metadata.version} (${m.arch}) is also the image of tag ${seen.tag} with another digest (${seen.digest} and ${m.digest})`,
        });
      continue;
    }
    byRelease.set(key, { tag, digest: m.digest });
    const record = {
      kind: m.metadata.kind,
      version: m.metadata.version,
      ...(m.metadata.previous && { previous: m.metadata.previous }),
      ...(m.metadata.next && { next: m.metadata.next }),
      ...(m.metadata.metadata && { metadata: m.metadata.metadata }),
      payload: pullSpec(client.ref, m.digest),
      architecture: m.arch,
    };
    const problems: Problem[] = [];
    const checked = checkReleaseDocument(record, `${file(tag)} ${RELEASE_METADATA}`, problems);
    // A bad release image is left out, as the reference leaves it out, and said loudly.
    if (problems.length || !checked) {
      result.skipped.invalid += 1;
      result.warnings.push(...problems);
    } else result.releases.push(releaseFromRecord(checked));
  }
  return result;
}

/**
 * What one tag's manifest is: remembered, or read now (layers top-most first) and remembered. `seen` is the
 * digest the tag had when last read (trusted as is); a tag `wasKnown` but not trusted is checked with a HEAD.
 */
async function scanTag(
  client: RegistryClient,
  cache: ManifestCache,
  tag: string,
  seen: string | undefined,
  wasKnown: boolean,
  now: () => string,
  signal: AbortSignal | undefined,
  onRead: () => void,
): Promise<ScannedManifest | undefined> {
  const trusted = seen && (await cache.manifest(seen));
  if (trusted) return trusted;
  if (wasKnown) {
    // A HEAD names the digest without a body: a tag that did not move costs nothing more.
    const current = await client.resolve(tag, signal).catch((err: unknown) => {
      if (err instanceof RegistryError && err.status === 404) return undefined;
      throw err;
    });
    const cached = current && (await cache.manifest(current));
    if (cached) return cached;
  }
  let fetched;
  try {
    fetched = await client.manifest(tag, signal);
  } catch (err) {
    // Deleted between the tag list and now: it is simply not there any more.
    if (err instanceof RegistryError && err.status === 404) return undefined;
    // A manifest of a kind this does not read (schema 1, an artifact): that tag is not a release image.
    if (err instanceof RegistryManifestError) return { digest: '', kind: 'other', reason: err.message };
    throw err;
  }
  const again = await cache.manifest(fetched.digest);
  if (again) return again;
  onRead();
  const where = `${describe(client.ref)}:${tag}`;
  let scanned: ScannedManifest;
  const m = fetched.manifest;
  if (m.kind === 'index') {
    const images = m.manifests.filter((d) => d.platform?.os !== 'unknown'); // attestations are not members
    const first = images[0];
    if (!first) scanned = { digest: fetched.digest, kind: 'other', reason: 'an index without images' };
    else {
      const member = await client.manifest(first.digest, signal).catch((err: unknown) => {
        if (err instanceof RegistryManifestError || (err instanceof RegistryError && err.status === 404)) return err;
        throw err;
      });
      if (member instanceof Error)
        scanned = { digest: fetched.digest, kind: 'other', reason: `its first image: ${member.message}` };
      else if (member.manifest.kind !== 'image')
        scanned = { digest: fetched.digest, kind: 'other', reason: 'an index whose first member is an index' };
      else {
        const metadata = await findMetadata(client, member.manifest.layers, where, signal);
        const arch = images.length === 1 ? (first.platform?.architecture ?? '') : 'multi';
        scanned =
          typeof metadata === 'string'
            ? { digest: fetched.digest, kind: 'other', reason: metadata }
            : { digest: fetched.digest, kind: 'index', arch, metadata, members: images.map((d) => d.digest) };
      }
    }
  } else {
    // The configuration (for the architecture) and the layers are fetched side by side.
    const [config, metadata] = await Promise.all([
      client.blobBytes(m.config.digest, undefined, signal),
      findMetadata(client, m.layers, where, signal),
    ]);
    let arch: unknown;
    try {
      arch = (JSON.parse(config.toString('utf8')) as { architecture?: unknown }).architecture;
    } catch {
      arch = undefined;
    }
    if (typeof metadata === 'string') scanned = { digest: fetched.digest, kind: 'other', reason: metadata };
    else if (typeof arch !== 'string' || !arch)
      scanned = { digest: fetched.digest, kind: 'other', reason: 'the image configuration names no architecture' };
    else scanned = { digest: fetched.digest, kind: 'release', arch, metadata };
  }
  await cache.remember(scanned, now());
  return scanned;
}

/**
 * The release metadata of an image: its layers are streamed top-most first and the first one holding the
 * file wins; the rest of that layer and the layers below are never fetched. A string says why there is none.
 */
async function findMetadata(
  client: RegistryClient,
  layers: Descriptor[],
  where: string,
  signal: AbortSignal | undefined,
): Promise<ReleaseMetadataDoc | string> {
  for (const layer of [...layers].reverse()) {
    // Not a filesystem layer (a signature, an attestation): no file in it, as the reference finds none.
    if (!isTarLayer(layer.mediaType)) continue;
    let text: string | undefined;
    try {
      await walkLayer(
        await client.blob(layer.digest, signal),
        layer.mediaType,
        `${where} layer ${layer.digest}`,
        async (e) => {
          if (e.path !== RELEASE_METADATA) return 'next';
          text = (await e.read(MAX_METADATA_BYTES)).toString('utf8');
          return 'stop';
        },
      );
    } catch (err) {
      // The layer's content is at fault (not a network error): this image is not a release image.
      if (err instanceof LayerError && err.content) return err.message;
      throw err;
    }
    if (text === undefined) continue;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      return `${RELEASE_METADATA} is not JSON: ${(err as Error).message}`;
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return `${RELEASE_METADATA} is not an object`;
    const d = doc as Record<string, unknown>;
    if (d.kind !== 'cincinnati-metadata-v0')
      return `${RELEASE_METADATA}: kind: expected cincinnati-metadata-v0, got ${JSON.stringify(d.kind)}`;
    // Only the fields of cincinnati-metadata-v0; others are ignored, as the reference ignores them.
    return {
      kind: d.kind,
      version: d.version as string,
      ...(d.previous !== undefined && { previous: d.previous as string[] }),
      ...(d.next !== undefined && { next: d.next as string[] }),
      ...(d.metadata !== undefined && { metadata: d.metadata as Record<string, string> }),
    };
  }
  return `no ${RELEASE_METADATA} in its ${layers.length} layer(s)`;
}
