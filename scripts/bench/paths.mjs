// The paths part of the bench: the update-path planner on the real conformance set, in process. The
// planner answers on the serving thread, so its time per question is time /graph waits behind it:
//   - every EUS question between GA releases two minors apart (limit 1), as the service test asks them;
//   - fewest-hops questions between random releases (a fixed seed), limit 3, alternatives included;
//   - mirror plans with 199 sources, the most a request may name, to the newest GA release.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { atMost, percentile } from './report.mjs';

export const PATHS_TARGETS = { question: atMost(5, 'ms'), mirror: atMost(250, 'ms') };

const INPUT = 'real';
const RANDOM_QUESTIONS = 2_000;
const MIRROR_PLANS = 10;
const MIRROR_SOURCES = 199;

export async function benchPaths(report, { root, realSet, log }) {
  const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const [{ readGraphData }, { buildGraph }, { planPaths }, { planMirror }] = await Promise.all([
    load('sources/graphData.js'),
    load('graph/build.js'),
    load('graph/paths.js'),
    load('graph/mirrorPlan.js'),
  ]);
  const read = await readGraphData(join(realSet, 'graph-data'));
  if (!read.tree) throw new Error(`the real set does not read: ${JSON.stringify(read.errors[0])}`);
  const graph = buildGraph(read.tree);
  const versions = [
    ...new Set(graph.nodes.filter((n) => n.arch === 'amd64' && n.channels.length).map((n) => n.version)),
  ];
  const ga = versions.filter((v) => !v.includes('-'));
  const minor = (v) => Number(v.split('.')[1]);
  const major = (v) => v.split('.')[0];
  const timed = (fn) => {
    const started = performance.now();
    fn();
    return performance.now() - started;
  };
  const row = (measure, times, target) => {
    report.add(`${measure}: p50`, INPUT, percentile(times, 50), { unit: 'ms', digits: 2 });
    report.add(`${measure}: p99`, INPUT, percentile(times, 99), { unit: 'ms', digits: 2, target });
    report.add(`${measure}: questions`, INPUT, times.length, { digits: 0 });
  };

  log('paths: every EUS pair of GA releases two minors apart');
  const eus = [];
  for (const from of ga)
    for (const to of ga)
      if (major(to) === major(from) && minor(to) === minor(from) + 2)
        eus.push(timed(() => planPaths(graph, { from, to, arch: 'amd64', mode: 'eus', limit: 1 })));
  row('EUS path, limit 1', eus, PATHS_TARGETS.question);

  log('paths: random fewest-hops questions, limit 3');
  let seed = 20261202;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const pick = () => versions[Math.floor(random() * versions.length)];
  const fewest = [];
  while (fewest.length < RANDOM_QUESTIONS) {
    const [from, to] = [pick(), pick()];
    if (from !== to) fewest.push(timed(() => planPaths(graph, { from, to, arch: 'amd64', limit: 3 })));
  }
  row('fewest-hops path, limit 3', fewest, PATHS_TARGETS.question);

  log(`paths: mirror plans with ${MIRROR_SOURCES} sources`);
  const newest = ga.reduce((a, b) => (minor(b) > minor(a) || (minor(b) === minor(a) && patch(b) > patch(a)) ? b : a));
  const mirror = [];
  for (let i = 0; i < MIRROR_PLANS; i++) {
    const from = Array.from({ length: MIRROR_SOURCES }, pick);
    mirror.push(
      timed(() => planMirror(graph, { to: newest, from, arch: 'amd64', mode: i % 2 ? 'eus' : 'fewest-hops' })),
    );
  }
  row(`mirror plan, ${MIRROR_SOURCES} sources`, mirror, PATHS_TARGETS.mirror);
}

const patch = (v) => Number(v.split('.')[2]);
