// Which tag names are sigstore attachments of an image in the same repository: the cosign tag convention,
// `sha256-<64 hex digits>.sig` (signature), `.att` (attestation) or `.sbom`, and nothing looser.
import { describe, expect, it } from 'vitest';
import { isSigstoreAttachmentTag } from '../../../src/sources/registryReleases.js';

const hex = 'c8636a92b5665988f030ed0948225276fea7428f2fe1f227142c988dc409a515';

describe('isSigstoreAttachmentTag', () => {
  it('names a signature, an attestation or an SBOM of a sha256 digest', () => {
    for (const suffix of ['sig', 'att', 'sbom']) expect(isSigstoreAttachmentTag(`sha256-${hex}.${suffix}`)).toBe(true);
  });

  it('refuses release tags and anything near the convention', () => {
    for (const tag of [
      '4.16.3-x86_64',
      '4.16.3-multi',
      `sha256-${hex}`,
      `sha256-${hex.slice(1)}.sig`,
      `sha256-${hex.toUpperCase()}.sig`,
      `sha512-${hex}.sig`,
      `sha256-${hex}.sig.bak`,
      `x-sha256-${hex}.sig`,
      `sha256-${hex}.signature`,
    ])
      expect(isSigstoreAttachmentTag(tag), tag).toBe(false);
  });
});
