// The product compiled to dist/ (tsc, incremental: only what changed since the last build), before the
// tiers that need it: the service tier's worker threads load it (Node starts a worker only from
// JavaScript), and the e2e tier's processes run it, with the dependencies it loads bundled and the command
// line bundled (scripts/bundle-cli.mjs). Each project's setup asks; the second compile finds
// nothing to do. An incremental tsc trusts its build record (dist/.tsbuildinfo) and would not write
// again an output deleted since: when one is missing, the record goes and everything is compiled.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { bundleCli } from '../../scripts/bundle-cli.mjs';
import { BUNDLES, bundleDependencies } from '../../scripts/bundle-dependencies.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');
const DIST = join(ROOT, 'dist');
let compiled: Promise<unknown> | undefined;

export function compileProduct(): Promise<unknown> {
  compiled ??= compile();
  return compiled;
}

async function compile(): Promise<void> {
  if (missingOutput()) rmSync(join(DIST, '.tsbuildinfo'), { force: true });
  try {
    await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
      { cwd: ROOT },
    );
  } catch (err) {
    const e = err as { stdout?: string; message: string };
    throw new Error(`the product does not compile:\n${e.stdout || e.message}`);
  }
  // The packages dist/ imports bundled (package.json "imports"): made again when one is missing, or the
  // lockfile or the list of bundles is newer than the oldest.
  const bundles = Object.keys(BUNDLES).map((file) => join(DIST, 'vendor', file));
  const made = Math.min(...bundles.map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)));
  const inputs = [join(ROOT, 'package-lock.json'), join(ROOT, 'scripts', 'bundle-dependencies.mjs')];
  if (inputs.some((f) => statSync(f).mtimeMs > made)) await bundleDependencies();
  // The command line bin/cincy.js runs, bundled from what tsc wrote: made each time, never left behind it.
  await bundleCli();
}

/** Whether a module of src/ (the web page's aside: esbuild builds it) has no compiled file in dist/. */
function missingOutput(): boolean {
  const walk = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return path !== join(SRC, 'ui') && walk(path);
      if (!e.name.endsWith('.ts') || e.name.endsWith('.d.ts')) return false;
      return !existsSync(join(DIST, relative(SRC, path).replace(/\.ts$/, '.js')));
    });
  return walk(SRC);
}
