// Temporary folders, and undoing what a test started or wrote: helpers that load nothing else, so the
// unit tests can use them without the server's or the command line's modules.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

export function tempDir(prefix = 'cincy-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Undo steps run after each test, newest first. Call once at the top of a test file. */
export function useCleanup(): { add(f: () => unknown): void; dir(): string } {
  let steps: Array<() => unknown> = [];
  // Every step runs, even after one failed (a process left running would outlive the file); the first
  // failure is reported once all have run.
  afterEach(async () => {
    const failures: unknown[] = [];
    for (const f of steps.reverse())
      await Promise.resolve()
        .then(f)
        .catch((err: unknown) => failures.push(err));
    steps = [];
    if (failures.length) throw failures[0];
  });
  return {
    add: (f) => void steps.push(f),
    dir() {
      const d = tempDir();
      steps.push(() => d.remove());
      return d.path;
    },
  };
}
