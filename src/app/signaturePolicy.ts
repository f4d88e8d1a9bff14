// Which releases the graph leaves out for want of a trusted signature (--require-signatures), and
// why. The graph service applies it to every graph it builds, the served snapshot and any preview
// alike, so every consumer sees the same graph.
import { payloadDigest, type Release } from '../graph/model.js';
import { TrustStore } from '../signatures/verify.js';
import type { StoredSignature } from '../store/signatures.js';

const UNSIGNED_REASON =
  'no signature of its payload digest is vouched for by the trusted keys, and the server runs with --require-signatures';

/** What the policy weighs of a stored signature: who signed it, when it was verified, for which digest. */
export type SignatureFacts = Pick<StoredSignature, 'digest' | 'envelope' | 'keyId' | 'verifiedAt'>;

export class SignaturePolicy {
  constructor(
    /** Whether a release needs a vouched-for signature to be served. */
    readonly required: boolean,
    private readonly trust: TrustStore = TrustStore.empty(),
  ) {}

  /** Every release is served. */
  static off(): SignaturePolicy {
    return new SignaturePolicy(false);
  }

  /**
   * Digests with a stored signature that the current trust keys still vouch for: a key removed or
   * revoked since the signature was verified counts no more.
   */
  vouchedDigests(signatures: readonly SignatureFacts[]): Set<string> {
    const vouched = signatures.filter((s) => this.trust.vouches(s.envelope, s.keyId, new Date(s.verifiedAt)));
    return new Set(vouched.map((s) => s.digest));
  }

  /** Why a release is left out of the graph, or undefined when it is served. */
  withheld(release: Pick<Release, 'payload'>, vouched: ReadonlySet<string>): string | undefined {
    if (!this.required || vouched.has(payloadDigest(release.payload))) return undefined;
    return UNSIGNED_REASON;
  }
}
