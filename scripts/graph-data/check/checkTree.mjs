// --check: reads a tree back with the project's own reader, which reports every problem of schema,
// names, versions and patterns, builds it with the project's graph build, and then checks what the
// dataset is meant to show. Returns the exit status: 0 when everything passed, else 1.
import { checkBlockedEdges } from './blockedEdges.mjs';
import { checkChannels } from './channels.mjs';
import { graphLookup, releaseLookup } from './lookup.mjs';
import { checkNumRange } from './numRange.mjs';
import { checkRawMetadata } from './rawMetadata.mjs';
import { checkReleases } from './releases.mjs';
import { CheckReport } from './report.mjs';
import { checkSizeTargets } from './sizeTargets.mjs';

const problemText = (p) => `${p.file}: ${p.field && p.field !== '-' ? `${p.field}: ` : ''}${p.message}`;

export async function checkTree(project, dir, size) {
  const report = new CheckReport();
  checkNumRange(report);
  const { tree, errors, warnings } = await project.readGraphData(dir);
  report.problems("the project's reader accepts the tree", [...errors, ...warnings].map(problemText));
  if (!tree) return report.finish();
  report.expect(tree.schemaVersion === '1.1.0', 'the schema version is 1.1.0', tree.schemaVersion);

  // As the server assembles it from an imported tree.
  const { releases, channels, blockedEdges, rawMetadata } = tree;
  const input = { releases, channels, blockedEdges, rawMetadata };
  const graph = project.buildGraph(input);
  report.problems("the project's graph build has no warnings", graph.warnings);
  const withErrata = new Set(tree.releases.filter((r) => r.metadata.url).map((r) => r.version));
  const context = {
    project,
    tree,
    input,
    graph,
    nodes: graphLookup(project, graph),
    hasRelease: releaseLookup(project, tree.releases),
    hasErrata: (ref) => withErrata.has(project.splitArch(ref).version),
    dir,
    size,
  };
  checkReleases(report, context);
  checkChannels(report, context);
  checkBlockedEdges(report, context);
  checkRawMetadata(report, context);
  checkSizeTargets(report, context);
  return report.finish();
}
