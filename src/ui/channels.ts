// The channels as the page lists them: by the version they track (4.9 before 4.16, compared as
// numbers), then by name; and the channel a fresh page opens.
import type { Catalog } from './api.js';
import { versionOrder } from './layout.js';

/** `stable-4.16` → `4.16.0`; a name without a version sorts first. */
function trackedVersion(name: string): string {
  const m = /-(\d+)\.(\d+)$/.exec(name);
  return m ? `${m[1]}.${m[2]}.0` : '0.0.0';
}

export function compareChannels(a: string, b: string): number {
  return versionOrder(trackedVersion(a), trackedVersion(b)) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The newest stable channel among some, else the newest of any kind. */
export function newestStable(names: string[]): string | undefined {
  const sorted = [...names].sort(compareChannels);
  return sorted.filter((n) => n.startsWith('stable-')).at(-1) ?? sorted.at(-1);
}

/** The channels serving releases of an arch, in list order. */
export function servedChannels(catalog: Catalog, arch: string): Catalog['channels'] {
  return catalog.channels.filter((c) => (c.releases[arch] ?? 0) > 0).sort((a, b) => compareChannels(a.name, b.name));
}
