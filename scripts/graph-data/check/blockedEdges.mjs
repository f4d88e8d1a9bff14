// Checks of the blocked edges beyond what the reader validates (keys, risk shape, patterns compile):
// each names real releases and hits at least one update edge of the built graph.
import { blockedEdgeFile, graphLookup } from './lookup.mjs';

/** The fallback every generated PromQL rule ends with, so clusters without the metric get an answer. */
const PROMQL_FALLBACK = /\nor\n0 \* group\(/;

const problemsOf = (edges, problemsOfEdge) =>
  edges.flatMap((b) => problemsOfEdge(b).map((p) => `${blockedEdgeFile(b)}: ${p}`));

export function checkBlockedEdges(report, context) {
  const edges = context.tree.blockedEdges;
  report.problems(
    'every to and fixedIn is a release, fixedIn newer than to',
    problemsOf(edges, (b) => releaseProblems(b, context)),
  );
  report.problems(
    'risk names are CamelCase and PromQL rules end with the all-clusters fallback',
    problemsOf(edges, riskShapeProblems),
  );
  const { nodes } = context;
  const makesConditional = (b) => nodes.nodesNamed(b.to).some((i) => nodes.riskNames(i).has(b.risk.name));
  report.problems(
    'every risk makes at least one update edge of the built graph conditional',
    problemsOf(edges, (b) => (b.risk && !makesConditional(b) ? ['matches no update edge'] : [])),
  );
  checkHardBlocks(report, context);
  checkRiskSpread(report, edges.filter((b) => b.risk));
}

function releaseProblems(b, { project, hasRelease }) {
  const out = [];
  if (!hasRelease(b.to)) out.push(`to ${b.to} is not a release`);
  if (b.fixedIn === undefined) return out;
  if (!hasRelease(b.fixedIn)) out.push(`fixedIn ${b.fixedIn} is not a release`);
  else if (project.compareVersions(b.fixedIn, project.splitArch(b.to).version) <= 0) {
    out.push(`fixedIn ${b.fixedIn} is not newer than ${b.to}`);
  }
  return out;
}

function riskShapeProblems(b) {
  if (!b.risk) return [];
  const out = /^[A-Z][A-Za-z0-9]+$/.test(b.risk.name) ? [] : [`risk name ${b.risk.name} is not CamelCase`];
  b.risk.matchingRules.forEach((r, i) => {
    const fallback = r.type !== 'PromQL' || PROMQL_FALLBACK.test(r.promql?.promql ?? '');
    if (!fallback) out.push(`matchingRules[${i}] lacks the fallback`);
  });
  return out;
}

/**
 * A hard block removes the unconditional edges its `from` matches, so the edges it hits are visible
 * in a build without hard blocks. An edge a risk made conditional stays conditional: a hard block that
 * only hits such edges removes nothing, which is noted, not failed.
 */
function checkHardBlocks(report, { project, input, tree }) {
  const hard = tree.blockedEdges.filter((b) => !b.risk);
  const risks = tree.blockedEdges.filter((b) => b.risk);
  const risksOnly = graphLookup(project, project.buildGraph({ ...input, blockedEdges: risks }));
  const hits = (b, sourcesOf) => {
    const from = project.compilePattern(b.from);
    return risksOnly.nodesNamed(b.to).some((i) => sourcesOf(i).some((s) => from.test(risksOnly.id(s))));
  };
  const removes = new Set(hard.filter((b) => hits(b, risksOnly.sources)));
  const shadowed = hard.filter((b) => !removes.has(b) && hits(b, risksOnly.conditionalSources));
  report.problems(
    'every hard block matches at least one update edge of the built graph',
    problemsOf(hard, (b) => (removes.has(b) || shadowed.includes(b) ? [] : ['matches no update edge'])),
  );
  report.note(
    'hard blocks that remove nothing: a risk already made every edge they match conditional',
    shadowed.map(blockedEdgeFile),
  );
}

function checkRiskSpread(report, risks) {
  const perTarget = new Map();
  const targetsPerName = new Map();
  for (const b of risks) {
    perTarget.set(b.to, (perTarget.get(b.to) ?? 0) + 1);
    targetsPerName.set(b.risk.name, (targetsPerName.get(b.risk.name) ?? new Set()).add(b.to));
  }
  const doubled = [...perTarget.values()].filter((n) => n >= 2).length;
  const spanning = [...targetsPerName.values()].filter((s) => s.size >= 2).length;
  report.expect(doubled > 0, 'some targets carry two or more risks', `${doubled} targets`);
  report.expect(spanning > 0, 'some risk names span several targets', `${spanning} names`);
}
