// Builds the simulator's command line into dist/: one bundle of its own code (main.js), and the routing
// bin/cincy.js asks on every call (routes.js, which loads nothing). The product it runs (cincy/…) and every
// npm package stay outside the bundles and load from node_modules, the product from its built dist/.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildSimulator() {
  await esbuild.build({
    entryPoints: { main: join(ROOT, 'src/cli/main.ts'), routes: join(ROOT, 'src/cli/routes.ts') },
    outdir: join(ROOT, 'dist'),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildSimulator();
  console.log(`simulator built in ${join(ROOT, 'dist')}`);
}
