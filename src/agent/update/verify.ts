// Step 2 of an update: the release's signature, as the cluster-version-operator checks it. Signatures
// come from ConfigMaps in openshift-config-managed labelled release.openshift.io/verification-signatures
// (named sha256-<hex>, keys sha256-<hex>-<N>) and from signature stores, <base>/sha256=<hex>/signature-<N>
// for N = 1… up to the first 404, each at most 50 KiB. One signature the trusted keys vouch for is enough.
import { readFile } from 'node:fs/promises';
import { request } from 'undici';
import type { ClusterApi } from '../../cluster/api.js';
import { KUBE_LABEL } from '../../cluster/labels.js';
import { RESOURCES, type ConfigMap } from '../../cluster/resources.js';
import { PAYLOAD_PATTERN } from '../../schemas/graphData.js';
import { MAX_SIGNATURE_BYTES, verifySignature, type TrustStore } from '../../signatures/verify.js';
import { signatureStorePath } from '../../signatures/storePath.js';

export type Verification = { verified: true; keyId: string; source: string } | { verified: false; message: string };

const LABEL = KUBE_LABEL.verificationSignatures;
const MAX_SIGNATURES = 16;

export class ReleaseVerifier {
  constructor(
    private readonly trust: TrustStore,
    private readonly api: ClusterApi,
    /** Base URLs (http, https or file) of signature stores. */
    private readonly stores: string[],
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** `clusterStores` (spec.signatureStores), when given, replace the configured stores, as on a cluster. */
  async verify(image: string, clusterStores?: string[]): Promise<Verification> {
    const at = image.lastIndexOf('@');
    const digest = at < 0 ? '' : image.slice(at + 1);
    if (!new RegExp(PAYLOAD_PATTERN).test(image))
      return {
        verified: false,
        message: 'The update cannot be verified: release images that are not accessed via digest cannot be verified',
      };
    if (this.trust.size === 0)
      return {
        verified: false,
        message: `The update cannot be verified: unable to verify ${digest}: no verification keys are configured (--trust-keys)`,
      };
    // Every keyring (a file of --trust-keys) must be satisfied by at least one signature.
    const keyrings = this.trust.keyrings.size
      ? [...this.trust.keyrings]
      : [['trusted keys', new Set([...this.trust.jws.map((k) => k.jwk.kid)])] as const];
    const unsatisfied = new Map(keyrings);
    const problems: string[] = [];
    const keyIds: string[] = [];
    for await (const { source, bytes } of this.signatures(
      digest,
      clusterStores?.length ? clusterStores : this.stores,
      problems,
    )) {
      try {
        const v = await verifySignature(bytes, digest, this.trust, this.now());
        keyIds.push(v.keyId);
        for (const [name, ids] of unsatisfied)
          if (ids.has(v.keyId) || !this.trust.keyrings.size) unsatisfied.delete(name);
        if (unsatisfied.size === 0) return { verified: true, keyId: keyIds.join(', '), source };
      } catch (err) {
        problems.push(`${source}: ${(err as Error).message}`);
      }
    }
    const unmet = [...unsatisfied.keys()].join(', ');
    const detail = problems.length ? ` (${problems.join('; ')})` : keyIds.length ? '' : ' (no signature found)';
    return {
      verified: false,
      message: `The update cannot be verified: unable to verify ${digest} against keyrings: ${unmet}${detail}`,
    };
  }

  private async *signatures(
    digest: string,
    stores: string[],
    problems: string[],
  ): AsyncGenerator<{ source: string; bytes: Uint8Array }> {
    const name = digest.replace(':', '-');
    try {
      const list = await this.api.list<ConfigMap>(RESOURCES.configMaps, {
        namespace: 'openshift-config-managed',
        labelSelector: LABEL,
      });
      for (const cm of list.items.filter((c) => c.metadata?.name === name)) {
        for (const [key, value] of Object.entries(cm.binaryData ?? {}).sort(([a], [b]) =>
          a.localeCompare(b, 'en', { numeric: true }),
        )) {
          if (key.startsWith(`${name}-`))
            yield { source: `configmap ${name} ${key}`, bytes: Buffer.from(value, 'base64') };
        }
      }
    } catch (err) {
      problems.push(`configmaps: ${(err as Error).message}`);
    }
    for (const base of stores) {
      for (let n = 1; n <= MAX_SIGNATURES; n++) {
        const url = `${base.replace(/\/$/, '')}/${signatureStorePath(digest, n)}`;
        let bytes: Uint8Array | undefined;
        try {
          bytes = await fetchSignature(url);
        } catch (err) {
          problems.push(`${url}: ${(err as Error).message}`);
          break;
        }
        if (!bytes) break;
        yield { source: url, bytes };
      }
    }
  }
}

/** One signature; undefined when there is none (404, or a missing file). */
async function fetchSignature(url: string): Promise<Uint8Array | undefined> {
  if (url.startsWith('file://')) {
    try {
      const bytes = await readFile(new URL(url));
      if (bytes.length > MAX_SIGNATURE_BYTES) throw new Error(`larger than ${MAX_SIGNATURE_BYTES} bytes`);
      return bytes;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }
  const res = await request(url, { headersTimeout: 10_000, bodyTimeout: 10_000 });
  if (res.statusCode === 404) {
    await res.body.dump();
    return undefined;
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new Error(`HTTP ${res.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_SIGNATURE_BYTES) {
      res.body.destroy();
      throw new Error(`larger than ${MAX_SIGNATURE_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
