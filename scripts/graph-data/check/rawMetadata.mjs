// Checks of raw/metadata.json beyond its schema: it names existing releases, shows the edits the
// dataset is meant to show, and every pulled release is also a tombstone of the candidate channel.

const FILE = 'raw/metadata.json';
const LABEL = 'io.openshift.upgrades.graph.';
const NAMES_RELEASES = /\.(previous|next)\.(add|remove)$/;

export function checkRawMetadata(report, { tree, hasRelease }) {
  const entries = Object.entries(tree.rawMetadata);
  const unknown = [];
  for (const [version, labels] of entries) {
    if (!hasRelease(version)) unknown.push(`${FILE}: ${version} is not a release`);
    for (const [key, value] of Object.entries(labels)) {
      if (!NAMES_RELEASES.test(key)) continue;
      const names = value.split(',').filter((name) => !hasRelease(name));
      unknown.push(...names.map((name) => `${FILE}: ${version} ${key}: ${name} is not a release`));
    }
  }
  report.problems(`${FILE} names existing releases`, unknown);
  const keys = new Set(entries.flatMap(([, labels]) => Object.keys(labels)));
  report.expect(
    keys.has(`${LABEL}previous.add`) && keys.has(`${LABEL}release.remove`),
    `${FILE} has previous.add and release.remove`,
    [...keys].map((k) => k.replace(LABEL, '')).join(', '),
  );
  const candidate = tree.channels.find((c) => c.internal && c.name === 'candidate');
  const pulled = entries.filter(([, labels]) => labels[`${LABEL}release.remove`] === 'true').map(([v]) => v);
  report.problems(
    'every pulled release is a tombstone of internal-channels/candidate.yaml',
    pulled.filter((v) => !candidate?.tombstones.includes(v)).map((v) => `${FILE}: ${v} is pulled but not tombstoned`),
  );
}
