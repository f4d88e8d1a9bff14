// Child processes of the bench: every one runs in its own process group and is remembered, so that
// the bench can stop the whole group (nginx workers, a server's helpers) on any way out: normal end,
// an error, Ctrl-C or SIGTERM. A bench that leaves a server behind would skew the next run.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';

/** Children still running, by pid (= their process group id, since they are spawned detached). */
const running = new Map();
/** Temp dirs removed on exit, after the children that write into them are gone. */
const tempDirs = new Set();

/**
 * Spawns a command in a new process group and keeps the last bytes of its output for error
 * messages (the bench does not print server logs unless something fails).
 */
export function start(name, command, args, options = {}) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { name, child, pid: child.pid, output: '', exited: false, code: null, signal: null };
  const keep = (chunk) => {
    proc.output = (proc.output + chunk.toString()).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  proc.done = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      Object.assign(proc, { exited: true, code, signal });
      running.delete(proc.pid);
      resolve(proc);
    });
  });
  child.on('error', (err) => {
    proc.output += `\n${err.message}`;
  });
  if (proc.pid !== undefined) running.set(proc.pid, proc);
  return proc;
}

/** Runs a command to its end and returns its output; `timeoutMs` bounds it. */
export async function run(name, command, args, { timeoutMs = 120_000, ...options } = {}) {
  const proc = start(name, command, args, options);
  let timer;
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const result = await Promise.race([proc.done, timedOut]);
  clearTimeout(timer);
  if (result === 'timeout') {
    await stop(proc);
    throw new Error(`${name}: still running after ${timeoutMs / 1000} s, stopped\n${proc.output}`);
  }
  if (proc.code !== 0) throw new Error(`${name}: exited with ${proc.code ?? proc.signal}\n${proc.output.trim()}`);
  return proc.output;
}

/** SIGTERM to the group, then SIGKILL if it is still there after `graceMs`. */
export async function stop(proc, graceMs = 3000) {
  if (proc.exited) return;
  signalGroup(proc.pid, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(proc.pid, 'SIGKILL'), graceMs);
  await proc.done;
  clearTimeout(timer);
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export function removeOnExit(dir) {
  tempDirs.add(dir);
  return dir;
}

/** Synchronous, so it also works inside process.on('exit'). */
function killAllNow() {
  for (const pid of running.keys()) signalGroup(pid, 'SIGKILL');
  running.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

export function installCleanupHandlers() {
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      console.error(`\nbench: ${signal}, stopping everything it started`);
      killAllNow();
      process.exit(128 + constants.signals[signal]);
    });
  }
}

export const hasCommand = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/**
 * CPU time (user + system, ms) used so far by every process of a process group: a server the bench
 * started (detached, so the group is its pid) with its threads, or nginx with its workers.
 */
export function groupCpuMs(pgid) {
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command (which may hold spaces): state is 3rd, pgrp 5th, utime 14th, stime 15th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(f[2]) === pgid) total += (Number(f[11]) + Number(f[12])) * tick;
  }
  return total;
}

/** Peak resident set of a process, from the kernel's high-water mark. */
export function peakRssMb(pid) {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}
