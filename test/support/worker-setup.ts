// The service tier runs the product from its TypeScript sources, but two parts run on worker threads,
// which Node starts from JavaScript files: the build worker (a store on a file is built off the serving
// thread) and the poll worker (polls recorded off it). Each is bundled here from its source, once per
// run, to where the product loads it (dist/app/…, as `npm run build` writes it), so the tier needs no
// build of its own and always runs the workers of the sources under test.
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..', '..');
const WORKERS = ['app/build/worker', 'app/fleet/pollWorker'];

export default async function setup(): Promise<void> {
  await build({
    entryPoints: Object.fromEntries(WORKERS.map((w) => [w, join(ROOT, 'src', `${w}.ts`)])),
    outdir: join(ROOT, 'dist'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
}
