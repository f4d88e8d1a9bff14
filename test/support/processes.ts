// Long-running `cincy` processes for e2e tests (an agent, a mock cluster on another API server), and waiting
// on what they do to a cluster.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'cincy.js');

export interface Running {
  child: ChildProcess;
  /** What it has printed so far (standard output and error). */
  output(): string;
}

export interface Launched extends Running {
  /** Its exit code or signal once it has ended; undefined while it runs. */
  ended(): number | NodeJS.Signals | undefined;
}

/** `cincy ARGS` as a process, killed (SIGKILL) by the cleanup; nothing is waited for. */
export function launchCincy(args: string[], cleanup: { add(f: () => unknown): void }): Launched {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let ended: number | NodeJS.Signals | undefined;
  cleanup.add(() => child.kill('SIGKILL'));
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  child.on('exit', (code, signal) => (ended = signal ?? code ?? undefined));
  return { child, output: () => out, ended: () => ended };
}

/** `cincy ARGS` as a process, killed (SIGKILL) by the cleanup; resolves once its output matches `ready`. */
export function startCincy(args: string[], ready: RegExp, cleanup: { add(f: () => unknown): void }): Promise<Running> {
  const launched = launchCincy(args, cleanup);
  return new Promise((resolve, reject) => {
    const seen = (): void => {
      if (ready.test(launched.output())) resolve(launched);
    };
    launched.child.stdout!.on('data', seen);
    launched.child.stderr!.on('data', seen);
    launched.child.on('exit', (code) => reject(new Error(`cincy ${args[0]} exited ${code}: ${launched.output()}`)));
  });
}

/** The pauses between two polls: short at first, for what is soon true, then longer, up to a second. */
export const POLL_MS = { first: 50, last: 1000, growth: 1.5 };

/** The pause between two polls of a check that costs next to nothing (a process's output read, one request in this process). */
export const CHEAP_POLL_MS = 100;

/**
 * What `f` answers once it answers something; the last error is in the timeout's message. Polls grow
 * apart (POLL_MS): a poll often runs kubectl or a cincy command, a process of its own, and a minute's
 * wait polled every 250 ms kept a core a third busy on a machine of two. A check that costs next to
 * nothing is polled every `everyMs` instead (CHEAP_POLL_MS), so that the wait ends when it comes true,
 * not up to a second after.
 */
export async function until<T>(
  what: string,
  f: () => Promise<T | undefined | false>,
  timeoutMs = 90_000,
  everyMs?: number,
): Promise<T> {
  let last: unknown;
  let pause = everyMs ?? POLL_MS.first;
  const next = (p: number): number => everyMs ?? Math.min(p * POLL_MS.growth, POLL_MS.last);
  for (const end = Date.now() + timeoutMs; Date.now() < end; pause = next(pause)) {
    const v = await f().catch((err: unknown) => ((last = err), undefined));
    if (v) return v;
    await new Promise((r) => setTimeout(r, pause));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
