// The product compiled to dist/ (tsc, incremental: only what changed since the last build), once per
// vitest run however many projects ask: the service tier's worker threads load it (Node starts a worker
// only from JavaScript), and the e2e tier's processes run it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
let compiled: Promise<unknown> | undefined;

export function compileProduct(): Promise<unknown> {
  compiled ??= promisify(execFile)(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    { cwd: ROOT },
  ).catch((err: { stdout?: string; message: string }) => {
    throw new Error(`the product does not compile:\n${err.stdout || err.message}`);
  });
  return compiled;
}
