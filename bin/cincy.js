#!/usr/bin/env -S node --optimize-for-size
// V8 sized for memory rather than speed: the peak RSS of a full-size import drops by about 40 MB
// (docs/dev/benchmarks/2026-11-22-graph-serving.md); serving is dominated by socket writes, so
// throughput barely moves.
// Thin launcher: the CLI is compiled to dist/ by `npm ci` (the prepare script), and bundled into dist/bundle/
// (scripts/bundle-cli.mjs: loading one module at a time was a sixth of serve's start). In a clone of the
// repository, the simulated cluster's commands (simulator/src/cli/routes.ts says which) are the simulator's,
// built beside it; the published package has no simulator, and its CLI says where those commands are.
import { existsSync, statSync } from 'node:fs';

const routes = new URL('../simulator/dist/routes.js', import.meta.url);
const simulator = existsSync(routes) ? await import(routes.href) : undefined;
const cli = cliFolder();
const { runAsProcess } = await import(`${cli}program.js`);
if (simulator?.isSimulatorCommand(process.argv.slice(2)))
  runAsProcess((await import('../simulator/dist/main.js')).simulatorMain);
else {
  const { main } = await import(`${cli}main.js`);
  runAsProcess((argv) => main(argv, simulator?.SIMULATOR_HELP));
}

/**
 * Where the command line is loaded from: the bundle, unless tsc compiled dist/ after it was made (in a clone,
 * `tsc` alone or a watch): the compiled files then, never older code. A package has no build record.
 */
function cliFolder() {
  const record = new URL('../dist/.tsbuildinfo', import.meta.url);
  const bundle = new URL('../dist/bundle/main.js', import.meta.url);
  const stale = existsSync(record) && (!existsSync(bundle) || statSync(bundle).mtimeMs < statSync(record).mtimeMs);
  return stale ? '../dist/cli/' : '../dist/bundle/';
}
