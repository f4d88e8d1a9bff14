// Bundles the command line's own modules (dist/cli/main.js and all it loads, each command's code a chunk
// loaded when the command runs) into dist/bundle/, which bin/cincy.js runs. Node reads an ES module file by
// file: `cincy serve` loads some 270 compiled modules before it does anything, and their resolution, reads and
// compiles were about a sixth of its start (the real 2024-08-09 graph-data, empty store: median 1,109 ms from
// files, 937 ms bundled, alternated on this 2-core machine: docs/dev/benchmarks/2026-12-02-start-up.md). npm
// packages stay outside, as node_modules holds them, and so do those bundle-dependencies.mjs bundles. The
// worker threads and the simulated cluster load dist/ file by file, as before. Run by `npm run build` after tsc.
//
// A module that finds a file from where it lies (`import.meta.url`: package.json, migrations/, a worker's
// script) finds it from where it was compiled, as in dist/: each module's `import.meta.url` becomes that of its
// compiled file, reckoned from the chunk it is bundled into.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_DIR = join(ROOT, 'dist', 'bundle');

/**
 * A compiled module's text, its `import.meta.url` that of `file` (where tsc wrote it), reckoned from the chunk in
 * `outDir` it is bundled into: the same wherever the package is installed. `import.meta.dirname` has no exact
 * equivalent made of globals (it is a path, not a URL), so a module that uses it is refused.
 */
export function keepCompiledPlace(text, file, outDir) {
  if (text.includes('import.meta.dirname'))
    throw new Error(`${file}: import.meta.dirname cannot be kept in the bundle; use import.meta.url`);
  const at = relative(outDir, file).split('\\').join('/');
  return text.replaceAll('import.meta.url', `new URL(${JSON.stringify(at)}, import.meta.url).href`);
}

const compiledPlaces = (outDir) => ({
  name: 'compiled-places',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, (args) => ({
      contents: keepCompiledPlace(readFileSync(args.path, 'utf8'), args.path, outDir),
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
});

/** Bundles the command line (`entryPoints`: by default dist/cli/main.js and program.js) into `outDir`. */
export async function bundleCli(
  outDir = BUNDLE_DIR,
  entryPoints = { main: join(ROOT, 'dist/cli/main.js'), program: join(ROOT, 'dist/cli/program.js') },
) {
  // Chunks are named by their content: those of the last build would stay beside the new ones.
  rmSync(outDir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints,
    outdir: outDir,
    bundle: true,
    // A chunk for each command's code, loaded when it runs, as dist/ loads it: `serve` does not load the agent.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // npm packages, and those bundle-dependencies.mjs bundled (package.json "imports"), load as they do from dist/.
    packages: 'external',
    external: ['#*'],
    sourcemap: 'linked',
    plugins: [compiledPlaces(outDir)],
    logLevel: 'error',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundleCli();
  console.log(`command line bundled in ${relative(process.cwd(), BUNDLE_DIR) || '.'}`);
}
