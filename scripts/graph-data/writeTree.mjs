// Writes the generated tree: only the parts this generator owns are deleted and written again, so
// anything else in the output folder stays. Release records are JSON, channels and blocked edges YAML.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { blockedEdgeYaml, channelYaml } from './yamlText.mjs';

/** The parts of a graph-data tree the generator owns. */
export const GENERATED_PARTS = ['channels', 'internal-channels', 'blocked-edges', 'raw', 'releases', 'version'];

const sha256 = (s) => crypto.createHash('sha256').update(s).digest('hex');

function sortedDeep(value) {
  if (Array.isArray(value) || value === null || typeof value !== 'object') return value;
  const out = {};
  for (const k of Object.keys(value).sort()) out[k] = sortedDeep(value[k]);
  return out;
}

/** A release record; its `previous` keeps only sources built for the same architecture. */
function releaseJson(v, arch, { versions, seed }) {
  const metadata = {};
  if (v.url) metadata.url = v.url;
  metadata.description = '';
  if (arch === 'multi') metadata['release.openshift.io/architecture'] = 'multi';
  const record = {
    kind: 'cincinnati-metadata-v0',
    version: v.name,
    previous: v.previous.filter((n) => versions.get(n).arches.includes(arch)),
    next: [],
    metadata,
    payload: `quay.example.com/ocp/release@sha256:${sha256(`cincy-graph-data/${seed}/${v.name}+${arch}`)}`,
    architecture: arch,
  };
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** Writes `dataset` ({ history, seed, rawMetadata, channels, internalChannels, blocked }); returns releases per arch. */
export function writeTree(out, dataset) {
  const arches = dataset.history.profile.arches.map((a) => a.arch);
  const write = (file, text) => fs.writeFileSync(path.join(out, ...file), text);
  for (const part of GENERATED_PARTS) fs.rmSync(path.join(out, part), { recursive: true, force: true });
  for (const dir of ['channels', 'internal-channels', 'blocked-edges', 'raw', ...arches.map((a) => `releases/${a}`)]) {
    fs.mkdirSync(path.join(out, dir), { recursive: true });
  }
  write(['version'], '1.1.0\n');
  for (const ch of dataset.channels.values()) write(['channels', `${ch.name}.yaml`], channelYaml(ch));
  for (const ch of dataset.internalChannels.values()) write(['internal-channels', `${ch.name}.yaml`], channelYaml(ch));
  for (const [file, b] of dataset.blocked) write(['blocked-edges', `${file}.yaml`], blockedEdgeYaml(b));
  write(['raw', 'metadata.json'], `${JSON.stringify(sortedDeep(dataset.rawMetadata), null, 2)}\n`);
  const perArch = Object.fromEntries(arches.map((a) => [a, 0]));
  const { versions } = dataset.history;
  for (const v of versions.values()) {
    for (const arch of v.arches) {
      write(['releases', arch, `${v.name}.json`], releaseJson(v, arch, { versions, seed: dataset.seed }));
      perArch[arch]++;
    }
  }
  return perArch;
}

/** One line: releases per architecture, channels, blocked edges and the share that use PromQL. */
export function summaryLine(dataset, perArch, outArg) {
  const { history, channels, internalChannels, blocked } = dataset;
  const arches = Object.keys(perArch);
  const total = Object.values(perArch).reduce((a, b) => a + b, 0);
  const edges = [...blocked.values()];
  const risks = edges.filter((b) => b.risk).length;
  const promql = edges.filter((b) => b.risk?.rules.some((r) => r.type === 'PromQL')).length;
  const share = edges.length ? ((100 * promql) / edges.length).toFixed(1) : '0.0';
  return (
    `${history.profile.name}: ${total} releases (${arches.map((a) => `${a} ${perArch[a]}`).join(', ')}; ` +
    `${history.versions.size} versions), ${channels.size} channels (+${internalChannels.size} internal), ` +
    `${edges.length} blocked edges (${risks} risks, ${edges.length - risks} hard blocks), ` +
    `PromQL share ${share}% -> ${outArg}\n`
  );
}
