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
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_DIR = join(ROOT, 'dist', 'bundle');

/**
 * A compiled module's text, its `import.meta.url` that of `file` (where tsc wrote it), reckoned from the chunk in
 * `outDir` it is bundled into: the same wherever the package is installed. The rest of `import.meta` has no
 * equivalent made of globals (`dirname` and `filename` are paths, not URLs; `resolve` resolves from the
 * module), so a module that uses it is refused. The replacement is of the text: tsc writes `import.meta.url`
 * in src/'s modules only as code.
 */
export function keepCompiledPlace(text, file, outDir) {
  const other = /import\.meta(?!\.url\b)(\.\w+)?/.exec(text);
  if (other) throw new Error(`${file}: ${other[0]} cannot be kept in the bundle; use import.meta.url`);
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
  const { outputFiles } = await esbuild.build({
    entryPoints,
    outdir: outDir,
    // Chunk names and the comments naming each module are made from paths relative to the clone, not to
    // where the build was run from.
    absWorkingDir: ROOT,
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
    write: false,
  });
  // A process started before this build (a server, a test run's processes) loads its commands' chunks later:
  // chunks are named by their content, each file is swapped in whole (written aside, then renamed), the entry
  // points last, and an earlier build's chunks stay a day, as the web page's assets do (build-ui.mjs).
  mkdirSync(outDir, { recursive: true });
  const entries = new Set(Object.keys(entryPoints).flatMap((name) => [`${name}.js`, `${name}.js.map`]));
  const ordered = [...outputFiles].sort(
    (a, b) => Number(entries.has(basename(a.path))) - Number(entries.has(basename(b.path))),
  );
  for (const file of ordered) {
    const aside = `${file.path}.${process.pid}.tmp`;
    writeFileSync(aside, file.contents);
    renameSync(aside, file.path);
  }
  const made = new Set(outputFiles.map((f) => basename(f.path)));
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of readdirSync(outDir))
    if (!made.has(name) && statSync(join(outDir, name)).mtimeMs < dayAgo) rmSync(join(outDir, name), { force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundleCli();
  console.log(`command line bundled in ${relative(process.cwd(), BUNDLE_DIR) || '.'}`);
}
