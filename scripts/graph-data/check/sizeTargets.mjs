// The targets each size is generated for: how big the tree is and what mix of blocked edges it has.
import fs from 'node:fs';
import path from 'node:path';
import { GENERATED_PARTS } from '../writeTree.mjs';

const MB = 1048576;
const mb = (n) => `${(n / MB).toFixed(2)} MB`;
const percent = (x) => `${(100 * x).toFixed(1)}%`;

/** Bytes of the generated parts of a tree: as files, and as allocated on disk. */
function diskUsage(dir) {
  let apparent = 0;
  let allocated = 0;
  const walk = (p) => {
    const st = fs.statSync(p);
    allocated += st.blocks * 512;
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
    else apparent += st.size;
  };
  for (const part of GENERATED_PARTS) walk(path.join(dir, part));
  return { apparent, allocated };
}

function blockedEdgeMix(edges) {
  const types = (b) => b.risk?.matchingRules.map((r) => r.type) ?? [];
  const promql = edges.filter((b) => types(b).includes('PromQL')).length;
  return {
    promqlShare: edges.length ? promql / edges.length : 0,
    both: edges.filter((b) => types(b).includes('PromQL') && types(b).includes('Always')).length,
    hard: edges.filter((b) => !b.risk).length,
    arm64: edges.filter((b) => b.to.endsWith('+arm64')).length,
  };
}

export function checkSizeTargets(report, { tree, dir, size }) {
  const edges = tree.blockedEdges;
  const mix = blockedEdgeMix(edges);
  if (size === 'demo') {
    const { apparent, allocated } = diskUsage(dir);
    const usage = `${mb(apparent)} apparent, ${mb(allocated)} on disk`;
    report.expect(allocated < 3 * MB && apparent < 3 * MB, 'demo data stays under 3 MB', usage);
    report.expect(edges.length >= 35 && edges.length <= 50, 'about 40 blocked-edge files', `${edges.length}`);
    report.expect(mix.both >= 1, 'a risk with both Always and PromQL rules', `${mix.both}`);
    report.expect(mix.hard >= 3, 'at least 3 hard blocks', `${mix.hard}`);
    report.expect(mix.arm64 >= 1, 'an arm64-specific blocked edge', `${mix.arm64}`);
    report.expect(mix.promqlShare >= 0.5, 'PromQL-heavy mix', percent(mix.promqlShare));
    return;
  }
  const publicChannels = tree.channels.filter((c) => !c.internal);
  const sizes = publicChannels.map((c) => c.versions.length);
  const inBand = sizes.filter((n) => n >= 120 && n <= 180).length;
  const arches = [...new Set(tree.releases.map((r) => r.arch))].sort();
  report.expect(tree.releases.length >= 3000, 'at least 3,000 releases', `${tree.releases.length}`);
  report.expect(arches.length >= 4, 'four architectures', arches.join(', '));
  report.expect(publicChannels.length >= 80, 'at least 80 channels', `${publicChannels.length}`);
  report.expect(edges.length >= 1500, 'at least 1,500 blocked-edge files', `${edges.length}`);
  report.expect(mix.promqlShare >= 0.4, 'at least 40% of blocked edges use PromQL', percent(mix.promqlShare));
  report.expect(
    inBand >= publicChannels.length * 0.6,
    'most channels hold 120-180 versions',
    `${inBand}/${publicChannels.length} in band, min ${Math.min(...sizes)}, max ${Math.max(...sizes)}`,
  );
}
