// Checks of the channels beyond what the reader validates: what they list exists and is served, the
// candidate >= fast >= stable ladder holds, and each version passes its feeder's filter and errata.
import { channelFile } from './lookup.mjs';

export function checkChannels(report, { project, tree, graph, nodes, hasErrata }) {
  const { channels } = tree;
  const each = (problemsOf) => channels.flatMap((c) => problemsOf(c).map((p) => `${channelFile(c)}: ${p}`));
  report.problems(
    'every channel version is a node of the built graph',
    each((c) => c.versions.filter((v) => !nodes.nodesNamed(v).length).map((v) => `${v} is not (or no longer) a release`)),
    `${graph.nodes.length} nodes`,
  );
  report.problems(
    'channel versions are in semver order, without tombstones',
    each((c) => [
      ...c.versions.flatMap((v, i) => {
        const before = c.versions[i - 1];
        return i > 0 && project.compareVersions(before, v) >= 0 ? [`${v} comes after ${before}`] : [];
      }),
      ...c.tombstones.filter((t) => c.versions.includes(t)).map((t) => `${t} is listed and tombstoned`),
    ]),
  );
  report.problems(
    'every channel version passes its feeder filter and errata rule',
    each((c) => {
      const filter = c.feeder?.filter === undefined ? undefined : project.compilePattern(c.feeder.filter);
      const needsErrata = c.feeder?.errata === 'public';
      const filtered = filter ? c.versions.filter((v) => !filter.matchesStart(project.splitArch(v).version)) : [];
      const noErrata = needsErrata ? c.versions.filter((v) => nodes.nodesNamed(v).length && !hasErrata(v)) : [];
      return [
        ...filtered.map((v) => `${v} does not match the filter ${c.feeder.filter}`),
        ...noErrata.map((v) => `${v} has no public errata`),
      ];
    }),
  );
  const internal = new Map(channels.filter((c) => c.internal).map((c) => [c.name, c]));
  const feeder = (name) => internal.get(name)?.feeder;
  report.expect(
    internal.has('candidate') &&
      !feeder('candidate') &&
      feeder('fast')?.name === 'candidate' &&
      feeder('fast')?.errata === 'public' &&
      feeder('stable')?.name === 'fast' &&
      feeder('stable')?.delay === 'P1W',
    'internal channels have the candidate -> fast -> stable feeders',
  );
  report.problems(
    'the ladder holds: stable within fast within candidate, each channel within its level',
    ladderProblems(channels),
  );
}

/** Each channel must be a subset of the channels above it on the ladder. */
function ladderProblems(channels) {
  const byFile = new Map(channels.map((c) => [channelFile(c), c]));
  const within = (channel, above) => {
    const ceiling = new Set(byFile.get(above)?.versions ?? []);
    return channel.versions.filter((v) => !ceiling.has(v)).map((v) => `${channelFile(channel)}: ${v} is not in ${above}`);
  };
  const problems = [];
  const internalOf = (level) => `internal-channels/${level}.yaml`;
  if (byFile.has(internalOf('stable'))) problems.push(...within(byFile.get(internalOf('stable')), internalOf('fast')));
  if (byFile.has(internalOf('fast'))) problems.push(...within(byFile.get(internalOf('fast')), internalOf('candidate')));
  for (const c of channels.filter((x) => !x.internal)) {
    const m = /^(candidate|fast|stable|eus)-(4\.\d+)$/.exec(c.name);
    if (!m) continue;
    const [, kind, minor] = m;
    if (kind === 'stable') problems.push(...within(c, `channels/fast-${minor}.yaml`));
    if (kind === 'fast') problems.push(...within(c, `channels/candidate-${minor}.yaml`));
    problems.push(...within(c, internalOf(kind === 'eus' ? 'stable' : kind)));
  }
  return problems;
}
