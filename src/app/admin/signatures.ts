// Release signatures added through the admin API: verified against the trust store for the
// release's payload digest, then stored for good (a stored signature is never rewritten).
import { ApiError } from '../../errors.js';
import { payloadDigest } from '../../graph/model.js';
import type { SignatureDoc } from '../../schemas/admin.js';
import { SignatureRefused, verifySignature, type TrustStore } from '../../signatures/verify.js';
import type { StoredSignature } from '../../store/signatures.js';
import type { Actor, AuditedWrites } from './writes.js';
import { signatureStorePath } from '../../signatures/storePath.js';

/** Where the signature store serves a signature: the layout the cluster-version-operator reads. */
const signatureUrl = (digest: string, n: number): string => `/signatures/${signatureStorePath(digest, n)}`;

export function signatureDoc(
  s: Pick<StoredSignature, 'n' | 'digest' | 'envelope' | 'keyId' | 'verifiedAt'>,
): SignatureDoc {
  return {
    n: s.n,
    digest: s.digest,
    envelope: s.envelope,
    keyId: s.keyId,
    verifiedAt: s.verifiedAt,
    url: signatureUrl(s.digest, s.n),
  };
}

export class SignatureWrites {
  constructor(
    private readonly writes: AuditedWrites,
    private readonly trust: TrustStore,
  ) {}

  /** Verifies a signature of a release's payload digest and stores it; `added` is false for bytes stored already. */
  async addSignature(
    arch: string,
    version: string,
    bytes: Buffer,
    actor: Actor,
  ): Promise<{ signature: SignatureDoc; added: boolean }> {
    const { graph } = this.writes;
    const release = await this.writes.store.read((tx) => tx.releases.get(arch, version));
    if (!release) throw new ApiError('does_not_exist', `no release ${version} for ${arch}`);
    const digest = payloadDigest(release.payload);
    let verified;
    try {
      verified = await verifySignature(bytes, digest, this.trust, this.writes.now());
    } catch (err) {
      if (err instanceof SignatureRefused) throw new ApiError('invalid_signature', `${err.reason}: ${err.message}`);
      throw err;
    }
    return this.writes.run(async (tx, at) => {
      const r = await tx.signatures.add({
        digest,
        envelope: verified.envelope,
        keyId: verified.keyId,
        bytes,
        verifiedAt: at,
      });
      const { n, envelope, keyId } = r.signature;
      if (r.added)
        await this.writes.record(tx, at, actor, 'signature.add', `${arch}/${version}`, null, {
          digest,
          n,
          envelope,
          keyId,
        });
      // Only a graph that withholds unsigned releases changes with a signature.
      return {
        result: { signature: signatureDoc(r.signature), added: r.added },
        changed: r.added && graph.signatures.required,
      };
    });
  }
}
