// The end-to-end tests run bin/cincy.js as a shell would, which loads dist/ and, for the simulated
// cluster's commands (mock-cluster, payload create and push, seed push), simulator/dist/: compile both
// once per run, and build the web page (dist/ui) the servers of the browser tests serve. The e2e
// project alone has this setup: the unit and service tiers need no build.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export default function setup(): void {
  const root = join(import.meta.dirname, '..', '..');
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );
  execFileSync(process.execPath, [join(root, 'scripts', 'build-ui.mjs')], { stdio: 'inherit' });
  execFileSync(process.execPath, [join(root, 'simulator', 'scripts', 'build.mjs')], { stdio: 'inherit' });
}
