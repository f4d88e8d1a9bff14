// The single-node host pulling the seed image of an image-based upgrade, as podman does on the node for the
// Lifecycle Agent: when the host data asks for a seed image (Prep writes the request), one pull from the
// image's registry with the cluster's registry settings (the mock-cluster registry flags: credentials as the
// cluster pull secret, CA, plain-HTTP registries) or with the pull secret the request names (a Secret of
// openshift-lifecycle-agent). The image is read whole: its manifest (of an index, the member of the node's
// architecture), its configuration's labels, then every layer streamed through its digest check, its
// unpacked size counted and the seed's root files kept. Pulls are asynchronous, as the payload Job's are; the
// host's pass (singleNode.ts) records how each ended.
import { RegistryClient, type RegistryClientOptions } from 'cincy/registry/client';
import { RegistryCredentials } from 'cincy/registry/credentials';
import { walkLayer, type Visit } from 'cincy/registry/layers';
import { parseImage, type ImageReference } from 'cincy/registry/reference';
import { PULL_SECRET_KEY, SEED_FILES } from '../payloads/seedImage.js';
import { HOST_CONFIGMAP, type SeedPull, type SeedPullOutcomes, type SeedPullResult } from './singleNodeHost.js';
import { kindNamed } from '../apiserver/kinds.js';
import { readHost } from './singleNode.js';
import type { ClusterState } from '../apiserver/state.js';

const MAX_FILE_BYTES = 1024 * 1024;

export class SeedPullError extends Error {
  constructor(
    readonly stage: 'inspect' | 'pull',
    message: string,
  ) {
    super(message);
  }
}

export interface SeedPullerOptions extends Omit<RegistryClientOptions, 'credentials'> {
  /** The cluster's pull secret: used when the request names no Secret. */
  credentials?: RegistryCredentials;
  /** host[:port] of the registries reached over plain HTTP (an image reference carries no scheme). */
  plainHttp?: Iterable<string>;
  /** The node's architecture (Go name): the member taken from an index. */
  arch?: string;
  log?: (message: string) => void;
}

interface Pull {
  /** Set when the pull has ended. */
  result?: Omit<SeedPullResult, 'at'>;
}

const keyOf = (r: SeedPull): string => `${r.image}\n${r.pullSecret ?? ''}\n${r.requestedAt}`;

export class SeedPuller implements SeedPullOutcomes {
  private readonly pulls = new Map<string, Pull>();
  private readonly plainHttp: Set<string>;

  constructor(private readonly o: SeedPullerOptions = {}) {
    this.plainHttp = new Set(o.plainHttp ?? []);
  }

  /** Starts the pull the host data asks for, if not under way or made; forgets the others. */
  start(state: ClusterState): void {
    let request: SeedPull | undefined;
    try {
      request = readHost(state)?.host.seedPull;
    } catch {
      return; // host data that does not parse: the host's pass reports it
    }
    const key = request && !request.result ? keyOf(request) : undefined;
    for (const [k, pull] of this.pulls) if (k !== key && pull.result) this.pulls.delete(k);
    if (!request || !key || this.pulls.has(key)) return;
    const pull: Pull = {};
    void this.pull(state, request).then(
      (result) => void (pull.result = result),
      (err: unknown) => {
        const stage = err instanceof SeedPullError ? err.stage : 'pull';
        const reason = err instanceof Error ? err.message : String(err);
        this.o.log?.(`pulling the seed image ${request.image} failed: ${reason}`);
        pull.result = { failed: { stage, reason } };
      },
    );
    this.pulls.set(key, pull);
  }

  outcome(request: SeedPull): ReturnType<SeedPullOutcomes['outcome']> {
    const pull = this.pulls.get(keyOf(request));
    if (!pull) return undefined;
    return pull.result ? { pending: false, result: pull.result } : { pending: true };
  }

  /** Pulls under way. */
  get pending(): number {
    return [...this.pulls.values()].filter((p) => !p.result).length;
  }

  private async pull(state: ClusterState, request: SeedPull): Promise<Omit<SeedPullResult, 'at'>> {
    let ref: ImageReference;
    try {
      ref = parseImage(request.image, 'spec.seedImageRef.image');
    } catch (err) {
      throw new SeedPullError('inspect', (err as Error).message);
    }
    ref.secure = !this.plainHttp.has(ref.registry);
    const credentials = request.pullSecret ? pullSecret(state, request.pullSecret) : this.o.credentials;
    const seed = await pullSeedImage(ref, { ...this.o, credentials });
    this.o.log?.(`pulled the seed image ${request.image} (${seed.digest}, ${seed.sizeBytes} bytes unpacked)`);
    return seed;
  }
}

/** The credentials of a pull secret of openshift-lifecycle-agent, as the host reads the file the agent wrote. */
function pullSecret(state: ClusterState, name: string): RegistryCredentials {
  const secret = state.find(kindNamed('Secret'), HOST_CONFIGMAP.namespace, name) as
    { data?: Record<string, string> } | undefined;
  if (!secret) throw new SeedPullError('inspect', `secrets "${name}" not found`);
  const data = secret.data?.[PULL_SECRET_KEY];
  if (data === undefined)
    throw new SeedPullError(
      'inspect',
      `did not find key ${PULL_SECRET_KEY} in Secret ${name}/${HOST_CONFIGMAP.namespace}`,
    );
  try {
    return RegistryCredentials.parse(
      Buffer.from(data, 'base64').toString('utf8'),
      `Secret ${HOST_CONFIGMAP.namespace}/${name}`,
    );
  } catch (err) {
    throw new SeedPullError('inspect', (err as Error).message);
  }
}

/**
 * Reads the seed image `ref` (by tag or digest) whole. A failure to read the manifest or the configuration is
 * an 'inspect' SeedPullError, a failure to read a layer a 'pull' one.
 */
export async function pullSeedImage(
  ref: ImageReference,
  o: RegistryClientOptions & { arch?: string } = {},
): Promise<Required<Pick<SeedPullResult, 'digest' | 'labels' | 'sizeBytes' | 'files'>>> {
  const client = new RegistryClient(ref, o);
  try {
    const inspect = async <T>(f: () => Promise<T>): Promise<T> => {
      try {
        return await f();
      } catch (err) {
        throw new SeedPullError('inspect', (err as Error).message);
      }
    };
    const version = ref.digest ?? ref.tag!;
    let fetched = await inspect(() => client.manifest(version));
    if (fetched.manifest.kind === 'index') {
      const members = fetched.manifest.manifests.filter((d) => d.platform?.os !== 'unknown');
      const member = members.find((d) => d.platform?.architecture === (o.arch ?? 'amd64')) ?? members[0];
      if (!member) throw new SeedPullError('inspect', `${named(ref)}: an index without images`);
      fetched = await inspect(() => client.manifest(member.digest));
    }
    const image = fetched.manifest;
    if (image.kind !== 'image') throw new SeedPullError('inspect', `${named(ref)}: not an image`);
    const config = await inspect(() => client.blobBytes(image.config.digest));
    let labels: Record<string, string>;
    try {
      const doc = JSON.parse(config.toString('utf8')) as { config?: { Labels?: Record<string, string> | null } };
      labels = doc.config?.Labels ?? {};
    } catch (err) {
      throw new SeedPullError('inspect', `${named(ref)}: configuration is not JSON: ${(err as Error).message}`);
    }
    let sizeBytes = config.length;
    const files: Record<string, string> = {};
    for (const layer of image.layers) {
      const what = `${named(ref)} layer ${layer.digest}`;
      try {
        await walkLayer(await client.blob(layer.digest), layer.mediaType, what, async (entry): Promise<Visit> => {
          sizeBytes += entry.header.size ?? 0;
          // Upper layers win, as in the mounted image.
          if (SEED_FILES.includes(entry.path) && entry.header.type === 'file')
            files[entry.path] = (await entry.read(MAX_FILE_BYTES)).toString('utf8');
          return 'next';
        });
      } catch (err) {
        throw new SeedPullError('pull', (err as Error).message);
      }
    }
    return { digest: fetched.digest, labels, sizeBytes, files };
  } finally {
    await client.close();
  }
}

/** The image as the messages name it. */
const named = (ref: ImageReference): string =>
  `${ref.registry}/${ref.repository}${ref.digest ? `@${ref.digest}` : `:${ref.tag}`}`;
