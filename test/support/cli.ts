// Running the `cincy` command as a shell does, and cleaning up what a test started or wrote.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export { useCleanup } from './cleanup.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'cincy.js');

export function cincy(
  args: string[],
  env: Record<string, string> = {},
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Like `cincy`, without blocking this process (servers it talks to may live in it). */
export function cincyAsync(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Served {
  url: string;
  child: ChildProcess;
  log(): string;
}

/**
 * Starts `cincy serve` on a free port (logging at info, so it says where it listens); resolves once it
 * listens and has built its first graph (a server reading registry sources may not be ready yet), or
 * with `until: 'listening'`, as soon as it listens.
 */
export function serveCli(
  args: string[],
  cleanup: { add(f: () => unknown): void },
  env: Record<string, string> = {},
  until: 'built' | 'listening' = 'built',
  cwd?: string,
): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--log-level', 'info', ...args], {
    env: { ...process.env, ...env },
    ...(cwd && { cwd }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let ended = false;
  cleanup.add(() => {
    ended = true;
    child.kill('SIGKILL');
  });
  let out = '';
  // A server that fails on its own while a test uses it (not stopped or killed by the test) says why
  // where the test run's output shows it.
  child.on('exit', (code, signal) => {
    if (!ended && code !== 0 && signal !== 'SIGKILL' && signal !== 'SIGTERM')
      process.stderr.write(
        `serve (pid ${child.pid}) exited on its own (${signal ?? code}); its last output:\n${out.slice(-4000)}\n`,
      );
  });
  return new Promise((resolve, reject) => {
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /Server listening at (https?:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && (until === 'listening' || out.includes('"msg":"graph built"')))
        resolve({ url: m[1]!, child, log: () => out });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
}

/** Polls `url`/readyz until it answers 200 (a server reading its registry sources answers 503 meanwhile). */
export async function waitReady(url: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const status = await fetch(`${url}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > end) throw new Error(`${url}/readyz not 200 within ${ms} ms (last ${status})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
