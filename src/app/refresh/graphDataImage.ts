// A graph-data container image as a source: each read asks which digest its tag points at, and only a new
// digest is pulled, read and imported (the operator restarts its pod for the same reason). A bad tree is
// rejected whole and the previous graph-data keeps serving.
import type { Clock } from '../../clock.js';
import type { RegistryClient } from '../../registry/client.js';
import { describe, repositoryName, type ImageReference } from '../../registry/reference.js';
import { currentDigest, readGraphDataImage } from '../../sources/graphDataImage.js';
import { TrustStore, verifyTreeSignatures } from '../../signatures/verify.js';
import { ImportRejected, type Store } from '../../store/store.js';
import { formatProblem } from '../../validation/problems.js';
import type { Log } from '../../log.js';
import { Source, SourceRejected } from './source.js';

export class GraphDataImageSource extends Source {
  constructor(
    private readonly client: RegistryClient,
    private readonly image: ImageReference,
    private readonly store: Store,
    private readonly trust: TrustStore,
    clock: Clock,
    log: Log,
  ) {
    super(describe(image), 'graph-data-image', clock, log);
  }

  /** The digest of this image the store last imported (its import source is `<image>@<digest>`). */
  async recall(): Promise<void> {
    const prefix = `${repositoryName(this.image)}@`;
    const last = (await this.store.read((tx) => tx.imports.lastSource(prefix)))?.slice(prefix.length);
    if (last) {
      this.status.ready = true;
      this.status.digest = last;
      this.applied = last;
    }
  }

  protected async read(signal: AbortSignal): Promise<boolean> {
    const digest = await currentDigest(this.client, this.image, signal);
    if (this.holdBack(digest) || digest === this.status.digest) return false;
    const read = await readGraphDataImage(this.client, { ...this.image, digest }, signal);
    for (const w of read.warnings) this.log.warn({ warning: formatProblem(w) }, 'graph-data warning');
    this.keepWarnings(read.warnings);
    if (!read.tree) throw new SourceRejected(`${this.status.name}: ${read.errors.length} problem(s)`, read.errors);
    const signatures = await verifyTreeSignatures(read.tree.signatures, this.trust, new Date(this.clock.now()));
    for (const w of signatures.warnings) this.log.warn({ warning: formatProblem(w) }, 'graph-data signature refused');
    signal.throwIfAborted(); // past its deadline, a read writes nothing
    let summary;
    try {
      summary = await this.store.importTree(read.tree, {
        source: `${repositoryName(this.image)}@${read.digest}`,
        signatures: signatures.verified,
      });
    } catch (err) {
      if (err instanceof ImportRejected) throw new SourceRejected(`${this.status.name}: ${err.message}`, err.problems);
      throw err;
    }
    this.status.digest = read.digest;
    this.applied = read.digest;
    this.log.info({ source: this.status.name, digest: read.digest, summary }, 'graph-data image imported');
    return !summary.skipped;
  }
}
