// The parts of the compiled project (dist/) the check uses: the graph-data reader, the graph build,
// version order and the pattern engine the server evaluates `from` and feeder filters with. The
// check runs the product itself, so it needs a build; without one it exits 2 and says so.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIST = new URL('../../../dist/', import.meta.url);
const MODULES = ['sources/graphData.js', 'graph/build.js', 'graph/version.js', 'graph/pattern.js'];

/** `{ readGraphData, buildGraph, compareVersions, splitArch, compilePattern }` from dist/. */
export async function loadProject() {
  const missing = MODULES.find((m) => !fs.existsSync(new URL(m, DIST)));
  if (missing) {
    process.stderr.write(
      `--check reads the tree with the project's own reader and graph build, compiled to dist/, ` +
        `and ${fileURLToPath(new URL(missing, DIST))} is missing: run \`npm run build\` first.\n`,
    );
    process.exit(2);
  }
  const [reader, build, version, pattern] = await Promise.all(MODULES.map((m) => import(new URL(m, DIST).href)));
  return {
    readGraphData: reader.readGraphData,
    buildGraph: build.buildGraph,
    compareVersions: version.compareVersions,
    splitArch: version.splitArch,
    compilePattern: pattern.compilePattern,
  };
}
