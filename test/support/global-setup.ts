// The end-to-end tests run bin/cincy.js as a shell would, which loads dist/ and, for the simulated
// cluster's commands (mock-cluster, payload create and push, seed push), simulator/dist/: compile both
// once per run (compile.ts, shared with the service tier's setup), and build the web page (dist/ui) the
// servers of the browser tests serve. Meanwhile, start the PostgreSQL the tier's files share, each test
// on a database of its own (postgres.ts). After the run, stop it and the API servers the workers started
// in the folder given them (realApiServer.ts).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { postgresBin, startPostgres, type PostgresServer } from '../../scripts/lib/postgres.mjs';
import { compileProduct } from './compile.js';
import { stopApiServersIn } from './realApiServer.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = join(import.meta.dirname, '..', '..');
  const run = (script: string) => promisify(execFile)(process.execPath, [join(root, script)]);
  // Without PostgreSQL the files that need it skip loudly, or fail under CI=true (postgres.ts).
  const postgres: Promise<PostgresServer | undefined> = postgresBin() ? startPostgres() : Promise.resolve(undefined);
  const built = Promise.all([compileProduct(), run('scripts/build-ui.mjs'), run('simulator/scripts/build.mjs')]);
  const [started, build] = await Promise.allSettled([postgres, built]);
  const server = started.status === 'fulfilled' ? started.value : undefined;
  if (build.status === 'rejected' || started.status === 'rejected') {
    await server?.close();
    throw build.status === 'rejected' ? build.reason : (started as PromiseRejectedResult).reason;
  }
  project.provide('sharedPostgresPort', server?.port ?? 0);
  const apiServers = mkdtempSync(join(tmpdir(), 'cincy-kube-'));
  project.provide('apiServersDir', apiServers);
  // Also when the run ends by a signal to this process alone (a CI cancel, `timeout`): the servers run in
  // process groups of their own and would outlive it. The API servers are stopped synchronously, as
  // vitest may exit on the signal; PostgreSQL has its SIGINT at once and shuts down on its own.
  const stopServers = (): Promise<void> | undefined => {
    process.off('SIGTERM', stopServers);
    process.off('SIGINT', stopServers);
    stopApiServersIn(apiServers);
    rmSync(apiServers, { recursive: true, force: true });
    return server?.close();
  };
  process.once('SIGTERM', stopServers);
  process.once('SIGINT', stopServers);
  return async () => {
    await stopServers();
  };
}
