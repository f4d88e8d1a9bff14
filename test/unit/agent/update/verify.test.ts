// Release verification (src/agent/update/verify.ts): every keyring satisfied by a signature, from the
// configured stores or those spec.signatureStores names. The update's other decisions are beside it
// (resolve, preconditions, adminAcks, gate).
import type { ClusterApi } from '../../../../src/cluster/api.js';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ReleaseVerifier } from '../../../../src/agent/update/verify.js';
import { generateKeys } from '../../../../src/cli/signing.js';
import { signPayload } from '../../../support/signing.js';
import { TrustStore } from '../../../../src/signatures/verify.js';
import { img } from '../../../support/clusterVersions.js';

describe('release verification (step 2)', () => {
  it('needs every keyring (each file of --trust-keys) satisfied by a signature; spec.signatureStores replace the configured stores', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cincy-verify-'));
    try {
      const image = img('4.16.5');
      const hex = image.split('sha256:')[1]!;
      const keys = join(dir, 'keys');
      const trust = join(dir, 'trust');
      mkdirSync(trust);
      const signed: string[] = [];
      for (const kid of ['alpha', 'beta']) {
        const k = await generateKeys({ alg: 'EdDSA', kid, out: keys });
        copyFileSync(k.jwksFile, join(trust, `${kid}.jwks.json`));
        signed.push(await signPayload(k.privateFile, image));
      }
      const store = (name: string, signatures: string[]): string => {
        mkdirSync(join(dir, name, `sha256=${hex}`), { recursive: true });
        signatures.forEach((sig, i) => writeFileSync(join(dir, name, `sha256=${hex}`, `signature-${i + 1}`), sig));
        return pathToFileURL(join(dir, name)).href;
      };
      const noConfigMaps = { list: async () => ({ items: [], metadata: {} }) } as unknown as ClusterApi;
      const verifier = async (stores: string[]): Promise<ReleaseVerifier> =>
        new ReleaseVerifier(await TrustStore.load(trust), noConfigMaps, stores);

      const onlyAlpha = await (await verifier([store('one', [signed[0]!])])).verify(image);
      expect(onlyAlpha).toEqual({
        verified: false,
        message: `The update cannot be verified: unable to verify sha256:${hex} against keyrings: beta.jwks.json`,
      });
      const both = await (await verifier([store('two', signed)])).verify(image);
      expect(both).toMatchObject({ verified: true, keyId: 'alpha, beta' });
      // spec.signatureStores replace the configured stores.
      expect(
        await (await verifier([store('three', signed)])).verify(image, [pathToFileURL(join(dir, 'empty')).href]),
      ).toMatchObject({ verified: false, message: expect.stringContaining('(no signature found)') });
      expect(await (await verifier([])).verify('quay.example/ocp/release:4.16.5')).toEqual({
        verified: false,
        message: 'The update cannot be verified: release images that are not accessed via digest cannot be verified',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
