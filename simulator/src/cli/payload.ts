// `cincy payload create|push`: make a demo release payload in the payload store (the folder the mock
// cluster's download Job and the agent read), or push one as a release image to a registry.
import semver from 'semver';
import { generatePayload } from '../payloads/generate.js';
import { loadPayload } from 'cincy/payload/load';
import { summary } from 'cincy/cli/payload';
import { IMAGE_ARCHES, pushReleaseImage, releaseTag, type ImageArch } from '../payloads/releaseImage.js';
import { PayloadStore } from 'cincy/payload/store';
import { registryAccess } from 'cincy/cli/registryFlags';
import { RegistryClient } from 'cincy/registry/client';
import { RegistryCredentials } from 'cincy/registry/credentials';
import type { Descriptor } from 'cincy/registry/manifest';
import {
  describe,
  parseRepository,
  pullSpec,
  repositoryName,
  TAG,
  type RepositoryReference,
} from 'cincy/registry/reference';
import type { Arch } from 'cincy/schemas/graphData';
import { call, HttpError } from 'cincy/cli/admin';
import { escapeLines } from 'cincy/cli/terminalText';

/** What says which release a payload is of: its flags, or its record on a cincy server (--release). */
interface ReleaseFlags {
  version?: string;
  previous?: string;
  url?: string;
  release?: string;
  arch: string;
  server: string;
}

export interface CreateOptions extends ReleaseFlags {
  image?: string;
  store: string;
}

export interface PushOptions extends ReleaseFlags {
  arches?: string;
  registry: string;
  tag?: string;
  registryCredentials?: string;
  registryCa?: string;
  /** false with --no-store. */
  store: string | false;
}

function semverFlag(flag: string, v: string): string {
  if (semver.valid(v) !== v) throw new Error(`${flag}: ${v} is not a semantic version (such as 4.16.5)`);
  return v;
}

interface Release {
  version: string;
  previous: string[];
  url?: string;
  /** The payload pull spec of the server's record (with --release). */
  payload?: string;
}

/**
 * The release to make a payload of: from --version, --previous and --url, or from the release record a cincy
 * server holds (--release; --previous then replaces the record's, --url its errata URL).
 */
async function releaseOf(o: ReleaseFlags): Promise<Release> {
  const previous = (o.previous ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
    .map((v) => semverFlag('--previous', v));
  if (o.url !== undefined && !/^https?:\/\/\S+$/.test(o.url))
    throw new Error(`--url: '${o.url}' is not an http(s) URL (the errata URL)`);
  if (!o.release) {
    if (!o.version) throw new Error('--version: required (or --release to read the release from a cincy server)');
    return { version: semverFlag('--version', o.version), previous, url: o.url };
  }
  const path = `/api/v1/releases/${encodeURIComponent(o.arch)}/${encodeURIComponent(semverFlag('--release', o.release))}`;
  let r: { release: { version: string; payload: string; previous?: string[]; metadata?: Record<string, string> } };
  try {
    r = (await call({ server: o.server, output: 'json' }, 'GET', path)) as typeof r;
  } catch (err) {
    throw new Error(`--release: ${err instanceof HttpError ? `${o.server}: ${err.message}` : (err as Error).message}`);
  }
  return {
    version: r.release.version,
    payload: r.release.payload,
    previous: [...(o.previous ? [] : (r.release.previous ?? [])), ...previous],
    url: o.url ?? r.release.metadata?.url,
  };
}

export async function create(o: CreateOptions): Promise<number> {
  if (o.release && (o.version || o.image))
    throw new Error('--release: reads the version and image from the server; do not also give --version or --image');
  if (!o.release && o.version && !o.image)
    throw new Error('--image: required with --version: the release image pull spec, <repo>@sha256:<hex>');
  const r = await releaseOf(o);
  const image = o.image ?? r.payload!;
  const store = new PayloadStore(o.store);
  try {
    store.digestOf(image);
  } catch (err) {
    throw new Error(`${o.release ? "--release: the release record's payload" : '--image'}: ${(err as Error).message}`);
  }
  const path = store.write(
    image,
    generatePayload({ version: r.version, image, arch: o.arch, previous: r.previous, url: r.url }),
  );
  process.stdout.write(`wrote ${r.version} (${image}) to ${path}\n`);
  process.stdout.write(escapeLines(describeSummary(summary(loadPayload(path)))));
  return 0;
}

/** --arches: the architectures of a multi release's images, each known and once. */
function archesOf(o: PushOptions): ImageArch[] | undefined {
  if (o.arches === undefined) return o.arch === 'multi' ? [...IMAGE_ARCHES] : undefined;
  if (o.arch !== 'multi') throw new Error('--arches: only with --arch multi (the architectures of its images)');
  const arches = o.arches.split(',').map((a) => a.trim());
  for (const a of arches)
    if (!(IMAGE_ARCHES as readonly string[]).includes(a))
      throw new Error(`--arches: '${a}' is not one of ${IMAGE_ARCHES.join(', ')}`);
  if (new Set(arches).size !== arches.length) throw new Error(`--arches: '${o.arches}' names an architecture twice`);
  if (arches.length < 2) throw new Error(`--arches: a multi release has images of two architectures at least`);
  return arches as ImageArch[];
}

/** The flags that say where to push, checked before anything is read or written. */
function destination(o: PushOptions): {
  ref: RepositoryReference;
  tag?: string;
  credentials: RegistryCredentials;
  ca?: string;
} {
  const ref = parseRepository(o.registry, '--registry');
  if (o.tag !== undefined && !TAG.test(o.tag))
    throw new Error(`--tag: '${o.tag}' is not a tag (letters, digits, _ . -, at most 128, not starting with . or -)`);
  return { ref, tag: o.tag, ...registryAccess(o) };
}

export async function push(o: PushOptions): Promise<number> {
  if (o.release && o.version)
    throw new Error('--release: reads the version from the server; do not also give --version');
  const to = destination(o);
  const arches = archesOf(o);
  const r = await releaseOf(o);
  const arch = o.arch as Arch;
  const tag = to.tag ?? releaseTag(r.version, arch);
  const files = generatePayload({
    version: r.version,
    repository: repositoryName(to.ref),
    arch,
    previous: r.previous,
    url: r.url,
  });
  const client = new RegistryClient(to.ref, { credentials: to.credentials, ca: to.ca });
  let pushed: Descriptor;
  try {
    pushed = await pushReleaseImage(client, { version: r.version, files, arch, arches, tag });
  } catch (err) {
    throw new Error(`pushing ${r.version} to ${describe({ ...to.ref, tag })}: ${(err as Error).message}`);
  } finally {
    await client.close();
  }
  const spec = pullSpec(to.ref, pushed.digest);
  const what = arch === 'multi' ? `multi (${arches!.join(', ')})` : arch;
  process.stderr.write(`pushed ${r.version} ${what} to ${describe({ ...to.ref, tag })}\n`);
  if (o.store !== false) {
    const path = new PayloadStore(o.store).write(spec, files);
    process.stderr.write(`wrote its payload to ${path}\n${escapeLines(describeSummary(summary(loadPayload(path))))}`);
  }
  process.stdout.write(`${spec}\n`);
  return 0;
}

/** A payload's summary as one line. */
const describeSummary = (s: ReturnType<typeof summary>): string =>
  `${s.manifests} manifests, ${s.operators} cluster operators, ${s.runlevels.length} runlevels: ${s.runlevels.join(', ')}\n`;
