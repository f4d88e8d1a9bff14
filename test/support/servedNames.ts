// The names a poll recorder is told a graph serves (app/fleet/pollNames.ts), for tests that record
// polls without a graph: the channels, arches and versions the tests poll with.
import type { ServedNames } from '../../src/app/fleet/pollNames.js';

export function servedNames(channels: string[], arches: string[], versions: string[]): ServedNames {
  const releases = new Set(versions);
  return { channels: new Set(channels), arches: new Set(arches), hasRelease: (v) => releases.has(v) };
}

/** What the fleet tests poll with: 4.16.1 to 4.16.3 on stable-4.16 and fast-4.16, amd64 and arm64. */
export const SERVED_4_16 = servedNames(
  ['stable-4.16', 'fast-4.16'],
  ['amd64', 'arm64'],
  ['4.16.1', '4.16.2', '4.16.3'],
);
