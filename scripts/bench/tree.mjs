// Just enough of a graph-data tree to know which channels to request and on which arch. This does not
// validate anything (cincy does); it reads channel names and version lists without a YAML library.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const stem = (file) => basename(file).replace(/\.(ya?ml|json)$/, '');
const unquote = (s) => s.trim().replace(/^(['"])(.*)\1$/, '$2');

/** `versions:` of a channel file, block style (`- 4.14.3`) or flow style (`[4.14.3, ...]`). */
function channelVersions(text) {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^versions:/.test(l));
  if (at < 0) return [];
  const inline = /^versions:\s*\[(.*)\]/.exec(lines[at]);
  if (inline) return inline[1].split(',').map(unquote).filter(Boolean);
  const out = [];
  for (const line of lines.slice(at + 1)) {
    const item = /^\s*-\s+(.+?)\s*$/.exec(line);
    if (item) out.push(unquote(item[1]));
    else if (/^\S/.test(line)) break; // the next top-level key
  }
  return out;
}

/** Versions per arch, from releases/<arch>/*.json (the record's `version`, else the file name). */
function releasesByArch(root) {
  const dir = join(root, 'releases');
  const byArch = new Map();
  if (!existsSync(dir)) return byArch;
  for (const arch of readdirSync(dir).sort()) {
    const versions = new Set();
    for (const f of readdirSync(join(dir, arch)).filter((n) => n.endsWith('.json'))) {
      let v = stem(f);
      try {
        v = JSON.parse(readFileSync(join(dir, arch, f), 'utf8')).version ?? v;
      } catch {
        // keep the file name
      }
      versions.add(v.split('+')[0]);
    }
    byArch.set(arch, versions);
  }
  return byArch;
}

/**
 * Channels of a tree with the arch to request each on: amd64 when the channel has amd64 nodes,
 * else the first arch (by name) that has any, else amd64. A channel entry `v+arch` names one arch;
 * a bare `v` names every arch that has a release `v`.
 */
export function channelsToRequest(root, extraNames = []) {
  const byArch = releasesByArch(root);
  const arches = ['amd64', ...[...byArch.keys()].filter((a) => a !== 'amd64')];
  const files = existsSync(join(root, 'channels'))
    ? readdirSync(join(root, 'channels')).filter((n) => /\.ya?ml$/.test(n))
    : [];
  const versionsOf = new Map(extraNames.map((n) => [n, []]));
  for (const f of files) versionsOf.set(stem(f), channelVersions(readFileSync(join(root, 'channels', f), 'utf8')));

  const hasNodes = (entries, arch) =>
    entries.some((e) => {
      const [v, a] = e.split('+');
      return (a === undefined || a === arch) && (byArch.get(arch)?.has(v) ?? false);
    });
  return [...versionsOf.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, entries]) => ({ name, arch: arches.find((a) => hasNodes(entries, a)) ?? 'amd64' }));
}
