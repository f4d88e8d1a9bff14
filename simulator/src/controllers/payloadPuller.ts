// The payload Job's download, on the host side of the mock's controllers: for each unfinished payload Job
// whose release image the payload store lacks and whose image is a registry pull spec by digest, one pull
// from that registry into the store (src/payload/pull.ts). Pulls are asynchronous; the Job controller stays
// a pure function of the state and time, and reads only how each pull stands (pending, done, failed and why).
import type { RegistryCredentials } from 'cincy/registry/credentials';
import { parseImage, type ImageReference } from 'cincy/registry/reference';
import { pullIntoStore } from 'cincy/payload/pull';
import type { PayloadStore } from 'cincy/payload/store';
import { isPayloadJob, jobFinished, jobImage, jobKey, type PayloadAvailability } from './jobs.js';
import { kindNamed } from '../apiserver/kinds.js';
import type { ClusterState } from '../apiserver/state.js';

export type PullOutcome = { state: 'pending' } | { state: 'done' } | { state: 'failed'; reason: string };

/** What the Job controller reads: the outcome of the pull made for a Job, if one was. */
export interface PullOutcomes {
  outcome(job: string): PullOutcome | undefined;
}

export interface PayloadPullerOptions {
  store: PayloadStore;
  credentials?: RegistryCredentials;
  /** PEM CA bundle registry certificates are checked against (default: the system's). */
  ca?: string;
  /** host[:port] of the registries reached over plain HTTP (a pull spec carries no scheme). */
  plainHttp?: Iterable<string>;
  /** The cluster's architecture (Go name): the member taken from an index. */
  arch?: string;
  /** Registry client settings (tests make them short). */
  retries?: number;
  backoffMs?: number;
  timeoutMs?: number;
  log?: (message: string) => void;
}

interface Pull {
  image: string;
  outcome: PullOutcome;
  ended: Promise<void>;
}

export class PayloadPuller implements PullOutcomes {
  private readonly pulls = new Map<string, Pull>();
  private readonly plainHttp: Set<string>;

  constructor(private readonly o: PayloadPullerOptions) {
    this.plainHttp = new Set(o.plainHttp ?? []);
  }

  /** Starts the pulls the payload Jobs of `state` need; forgets the ended pulls of Jobs that are gone. */
  start(state: ClusterState): void {
    const live = new Set<string>();
    for (const job of state.list(kindNamed('Job'), 'openshift-cluster-version')) {
      if (!isPayloadJob(job)) continue;
      const key = jobKey(job);
      live.add(key);
      if (jobFinished(job) || this.pulls.has(key)) continue;
      const image = jobImage(job);
      if (!image || this.o.store.has(image)) continue;
      let ref: ImageReference;
      try {
        ref = parseImage(image, 'the release image');
      } catch {
        continue; // not a registry pull spec: the Job finds nothing to pull and fails as it did
      }
      if (!ref.digest) continue;
      const pull: Pull = { image, outcome: { state: 'pending' }, ended: Promise.resolve() };
      pull.ended = this.pull(image).then(
        () => void (pull.outcome = { state: 'done' }),
        (err: unknown) => {
          const reason = err instanceof Error ? err.message : String(err);
          this.o.log?.(`pulling ${image} failed: ${reason}`);
          pull.outcome = { state: 'failed', reason };
        },
      );
      this.pulls.set(key, pull);
    }
    for (const [key, pull] of this.pulls)
      if (!live.has(key) && pull.outcome.state !== 'pending') this.pulls.delete(key);
  }

  outcome(job: string): PullOutcome | undefined {
    return this.pulls.get(job)?.outcome;
  }

  /** Pulls under way. */
  get pending(): number {
    return [...this.pulls.values()].filter((p) => p.outcome.state === 'pending').length;
  }

  /** Resolves when every pull started so far has ended. */
  async idle(): Promise<void> {
    await Promise.all([...this.pulls.values()].map((p) => p.ended));
  }

  private async pull(image: string): Promise<void> {
    const { credentials, ca, arch, retries, backoffMs, timeoutMs } = this.o;
    const plainHttp = this.plainHttp;
    const files = await pullIntoStore(this.o.store, image, {
      credentials,
      ca,
      arch,
      retries,
      backoffMs,
      timeoutMs,
      plainHttp,
    });
    this.o.log?.(`pulled ${image}: ${files} files of release-manifests/ into ${this.o.store.dir}`);
  }
}

/**
 * Where the payload of a payload Job stands: in the store, or being pulled, or missing with the reason —
 * not in the store, and the pull's failure when one was tried. Reads only.
 */
export function payloadAvailability(
  store: PayloadStore,
  pulls: PullOutcomes | undefined,
): (image: string, job: string) => PayloadAvailability {
  return (image, job) => {
    if (store.has(image)) return { state: 'stored' };
    const pull = pulls?.outcome(job);
    if (pull?.state === 'pending') return { state: 'pulling' };
    const missing = `the release image ${image} is not in the payload store ${store.dir}`;
    if (pull?.state === 'failed')
      return { state: 'missing', reason: `${missing}, and pulling it failed: ${pull.reason}` };
    return { state: 'missing', reason: missing };
  };
}
