// A real Prometheus (Debian's package) as a process on a free port, scraping the mock cluster.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const PROMETHEUS = '/usr/bin/prometheus';

/** True when the binary is here; under CI=true its absence fails, never skips. */
export function prometheusAvailable(): boolean {
  if (existsSync(PROMETHEUS)) return true;
  if (process.env.CI === 'true')
    throw new Error(`${PROMETHEUS} is missing (CI=true: nothing may skip; .ci/run installs the prometheus package)`);
  console.warn(
    `\n*** SKIPPING tests that need a real Prometheus: ${PROMETHEUS} not found (apt-get install prometheus) ***\n`,
  );
  return false;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/**
 * Starts Prometheus scraping `target` (host:port) every second with the bearer `token` (the mock cluster's
 * /metrics is behind it), evaluating `rules` (a rule file's YAML) if given; resolves once a scrape has landed.
 */
export async function startPrometheus(
  target: string,
  token: string,
  dir: string,
  cleanup: { add(f: () => unknown): void },
  caFile?: string,
  rules?: string,
): Promise<string> {
  const port = await freePort();
  const config = join(dir, 'prometheus.yml');
  const tls = caFile ? `    scheme: https\n    tls_config:\n      ca_file: ${caFile}\n` : '';
  if (rules) writeFileSync(join(dir, 'rules.yml'), rules);
  const ruleFiles = rules ? `rule_files:\n  - ${join(dir, 'rules.yml')}\n` : '';
  writeFileSync(
    config,
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n${ruleFiles}scrape_configs:\n  - job_name: mock-cluster\n${tls}    authorization:\n      credentials: ${token}\n    static_configs:\n      - targets: ['${target}']\n`,
  );
  const child = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  cleanup.add(
    () =>
      new Promise<void>((resolve) =>
        child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM')),
      ),
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}: ${err}`);
    try {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent('count(cluster_version)')}`);
      const doc = (await res.json()) as { data?: { result?: unknown[] } };
      if (doc.data?.result?.length) return url;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`prometheus did not scrape ${target} in time: ${err}`);
}
