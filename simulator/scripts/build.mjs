// Builds the simulator's command line into dist/: its own code bundled (main.js, with a chunk for what each
// command loads when it runs), and the routing bin/cincy.js asks on every call (routes.js, which loads
// nothing). The product it runs (cincy/…) and every npm package stay outside the bundles and load from
// node_modules, the product from its built dist/.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildSimulator() {
  // Chunks are named by their content: those of the last build would stay beside the new ones.
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  await esbuild.build({
    entryPoints: { main: join(ROOT, 'src/cli/main.ts'), routes: join(ROOT, 'src/cli/routes.ts') },
    outdir: join(ROOT, 'dist'),
    bundle: true,
    // Each command's module a chunk of its own, loaded when the command runs: `mock-cluster` does not load
    // the agent, nor `payload create` the simulated API server.
    splitting: true,
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
