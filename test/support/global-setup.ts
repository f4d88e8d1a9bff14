// The end-to-end tests run bin/cincy.js as a shell would, which loads dist/ and, for the simulated
// cluster's commands (mock-cluster, payload create and push, seed push), simulator/dist/: compile both
// once per run (compile.ts, shared with the service tier's setup), and build the web page (dist/ui) the
// servers of the browser tests serve.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { compileProduct } from './compile.js';

export default async function setup(): Promise<void> {
  const root = join(import.meta.dirname, '..', '..');
  await compileProduct();
  execFileSync(process.execPath, [join(root, 'scripts', 'build-ui.mjs')], { stdio: 'inherit' });
  execFileSync(process.execPath, [join(root, 'simulator', 'scripts', 'build.mjs')], { stdio: 'inherit' });
}
