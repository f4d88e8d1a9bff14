// Release payloads: the task graph's ordering guarantees (src/payload/taskGraph.ts), a seeded property
// test over random payloads. The payload store is tested in store.test.ts, loadPayload's refusals in
// load.test.ts, the simulator's generated payload in simulator/test/unit/payloads/generate.test.ts, the
// `cincy payload` commands in test/e2e/payload-commands.test.ts.
import { describe, expect, it } from 'vitest';
import type { KubeDoc, Manifest } from '../../../src/payload/load.js';
import { runStage, taskGraph, type Stage } from '../../../src/payload/taskGraph.js';

/** mulberry32: a small seeded PRNG, so a failing case can be replayed from its seed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Event =
  | { at: 'start' | 'end' | 'fail'; file: string }
  | { at: 'task-start' | 'task-end'; component: string }
  | { at: 'rejected' };

describe('taskGraph and runStage', () => {
  const COMPONENTS = ['a', 'b-c', 'dns', 'etcd', 'kube-apiserver', 'machine-config', 'x-1-y'];

  function randomManifests(rand: () => number): Manifest[] {
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const runlevels = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => Math.floor(rand() * 100));
    const components = COMPONENTS.filter(() => rand() < 0.6);
    if (!components.length) components.push(pick(COMPONENTS));
    const byFile = new Map<string, Manifest>();
    const count = 1 + Math.floor(rand() * 40);
    const jobs = rand() < 0.4 ? 1 + Math.floor(rand() * 2) : 0;
    for (let i = 0; i < count + jobs; i++) {
      const runlevel = pick(runlevels);
      const component = pick(components);
      const job = i >= count;
      // Mostly padded like real payloads, sometimes not: '0000_7_' sorts after '0000_10_' but runs first.
      const file = `0000_${rand() < 0.2 ? runlevel : String(runlevel).padStart(2, '0')}_${component}_${String(Math.floor(rand() * 100)).padStart(2, '0')}_${job ? 'migrate.job' : pick(['crd', 'deployment', 'rbac', 'config'])}.yaml`;
      const docs: KubeDoc[] = [
        job
          ? { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: file } }
          : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: file } },
      ];
      byFile.set(file, { file, runlevel, component, docs });
    }
    return [...byFile.values()].sort(() => rand() - 0.5); // taskGraph must not rely on the input order
  }

  /** Runs every stage in order, as the agent does, logging starts and ends; `fail` names a file whose apply throws. */
  async function execute(
    stages: Stage[],
    workers: number,
    rand: () => number,
    fail?: string,
  ): Promise<{ log: Event[]; error?: unknown }> {
    const log: Event[] = [];
    const delays = new Map(stages.flatMap((s) => s.tasks.flatMap((t) => t.manifests)).map((m) => [m.file, rand()]));
    const pause = async (r: number): Promise<void> => {
      if (r < 0.3) return new Promise((resolve) => setTimeout(resolve, Math.floor(r * 10)));
      for (let i = 0; i < Math.floor(r * 8); i++) await Promise.resolve();
    };
    try {
      for (const stage of stages) {
        await runStage(stage, workers, async (task) => {
          log.push({ at: 'task-start', component: task.component });
          try {
            for (const m of task.manifests) {
              log.push({ at: 'start', file: m.file });
              await pause(delays.get(m.file)!);
              if (m.file === fail) {
                log.push({ at: 'fail', file: m.file });
                throw new Error(`${m.file}: apply failed`);
              }
              log.push({ at: 'end', file: m.file });
            }
          } finally {
            log.push({ at: 'task-end', component: task.component });
          }
        });
      }
    } catch (error) {
      log.push({ at: 'rejected' });
      return { log, error };
    }
    return { log };
  }

  it('keeps the CVO ordering rules on 200 random payloads', async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = prng(seed);
      const manifests = randomManifests(rand);
      const byFile = new Map(manifests.map((m) => [m.file, m]));
      const workers = 1 + Math.floor(rand() * 16);
      const failing = rand() < 0.25 ? manifests[Math.floor(rand() * manifests.length)]!.file : undefined;
      const { log, error } = await execute(taskGraph(manifests), workers, rand, failing);
      const where = `seed ${seed}`;
      const at = (kind: 'start' | 'end' | 'fail'): Map<string, number> =>
        new Map(log.flatMap((e, i) => (e.at === kind ? [[e.file, i] as const] : [])));
      const [startAt, endAt] = [at('start'), at('end')];

      // (d) never more than `workers` tasks at once, and (b) never two files of a component at once.
      let tasks = 0;
      const open = new Map<string, number>();
      for (const e of log) {
        if (e.at === 'task-start') expect(++tasks, where).toBeLessThanOrEqual(workers);
        if (e.at === 'task-end') tasks--;
        if (e.at === 'start' || e.at === 'end' || e.at === 'fail') {
          const c = byFile.get(e.file)!.component;
          open.set(c, (open.get(c) ?? 0) + (e.at === 'start' ? 1 : -1));
          expect(open.get(c), where).toBeLessThanOrEqual(1);
        }
      }
      const started = log.flatMap((e) => (e.at === 'start' ? [e.file] : []));
      expect(new Set(started).size, where).toBe(started.length);
      // (c) the files of a component start in lexicographic order (runlevel by runlevel).
      for (const c of new Set(manifests.map((m) => m.component))) {
        const order = started.filter((f) => byFile.get(f)!.component === c);
        expect(order, where).toEqual(
          [...order].sort((x, y) => byFile.get(x)!.runlevel - byFile.get(y)!.runlevel || (x < y ? -1 : 1)),
        );
      }
      for (const f of started) {
        const m = byFile.get(f)!;
        for (const other of manifests) {
          // (a) a runlevel starts after every file of the lower runlevels finished.
          if (other.runlevel < m.runlevel)
            expect(endAt.get(other.file) ?? Infinity, `${where}: ${other.file} before ${f}`).toBeLessThan(
              startAt.get(f)!,
            );
          // (f) around a Job of the same runlevel: what sorts before it ends before it starts, what sorts after starts after it ends.
          if (other.runlevel !== m.runlevel || other.docs[0]!.kind !== 'Job' || other.file === f) continue;
          if (f < other.file && startAt.has(other.file))
            expect(endAt.get(f) ?? Infinity, `${where}: ${f} before job ${other.file}`).toBeLessThan(
              startAt.get(other.file)!,
            );
          if (f > other.file)
            expect(endAt.get(other.file) ?? Infinity, `${where}: job ${other.file} before ${f}`).toBeLessThan(
              startAt.get(f)!,
            );
        }
      }

      if (!failing) {
        // (e) every manifest applied exactly once.
        expect(error, where).toBeUndefined();
        expect([...started].sort(), where).toEqual(manifests.map((m) => m.file).sort());
        expect(log.filter((e) => e.at === 'end')).toHaveLength(manifests.length);
        continue;
      }
      // After a failure: no task starts, the running ones finish, then the stage rejects with every failure.
      expect(error, where).toBeInstanceOf(AggregateError);
      expect(
        (error as AggregateError).errors.map((e: Error) => e.message),
        where,
      ).toEqual([`${failing}: apply failed`]);
      const failedAt = at('fail').get(failing)!;
      expect(
        log.slice(failedAt).some((e) => e.at === 'task-start'),
        where,
      ).toBe(false);
      expect(log.filter((e) => e.at === 'task-start').length, where).toBe(
        log.filter((e) => e.at === 'task-end').length,
      );
      expect(log[log.length - 1], where).toEqual({ at: 'rejected' });
    }
  });

  it('rejects with every failure of the running tasks and starts nothing after the first', async () => {
    const stage: Stage = {
      runlevel: 50,
      tasks: ['a', 'b', 'c', 'd', 'e'].map((component) => ({ runlevel: 50, component, manifests: [] })),
    };
    const started: string[] = [];
    const finished: string[] = [];
    const promise = runStage(stage, 3, async (t) => {
      started.push(t.component);
      await new Promise((resolve) => setTimeout(resolve, { a: 20, b: 1, c: 5 }[t.component] ?? 0));
      finished.push(t.component);
      if (t.component !== 'a') throw new Error(`0000_50_${t.component}_00_x.yaml: refused`);
    });
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AggregateError);
    expect((err as AggregateError).errors.map((e: Error) => e.message)).toEqual([
      '0000_50_b_00_x.yaml: refused',
      '0000_50_c_00_x.yaml: refused',
    ]);
    expect((err as Error).message).toBe(
      'runlevel 50: 2 of 5 tasks failed: 0000_50_b_00_x.yaml: refused; 0000_50_c_00_x.yaml: refused',
    );
    expect(started).toEqual(['a', 'b', 'c']);
    expect(finished).toEqual(['b', 'c', 'a']); // a was running, so it finished before the stage gave up
    await expect(runStage(stage, 0, async () => {})).rejects.toThrow('workers must be at least 1');
  });
});
