// Release values for the pure tiers: a release of a version with its previous list, a payload pinned
// by a digest made from the version and arch (so two arches of a version differ).
import type { Release } from '../../src/graph/model.js';

/** 64 hex digits derived from `s` (not a hash of anything; only stable and distinct enough). */
export const fakeDigest = (s: string): string =>
  [...s.padEnd(64, '0')]
    .map((c) => (c.charCodeAt(0) % 16).toString(16))
    .join('')
    .slice(0, 64);

export const rel = (version: string, previous: string[] = [], extra: Partial<Release> = {}): Release => ({
  version,
  arch: 'amd64',
  payload: `quay.example/ocp/release@sha256:${fakeDigest(version + (extra.arch ?? 'amd64'))}`,
  previous,
  next: [],
  metadata: {},
  ...extra,
});
