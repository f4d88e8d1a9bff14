// The order the CVO applies a payload in: stages by runlevel, strictly one after another; within a stage one
// task per component, run in parallel; within a task the component's files in name order. A Job manifest
// splits its runlevel, so what follows it in name order starts only once the Job is applied.
import type { Manifest } from './load.js';

export interface Task {
  runlevel: number;
  component: string;
  manifests: Manifest[];
}

export interface Stage {
  runlevel: number;
  tasks: Task[];
}

const isJob = (m: Manifest): boolean => m.docs.some((d) => d.kind === 'Job' && d.apiVersion.startsWith('batch/'));

function stage(runlevel: number, manifests: Manifest[]): Stage {
  const tasks = new Map<string, Task>();
  for (const m of manifests) {
    let t = tasks.get(m.component);
    if (!t) tasks.set(m.component, (t = { runlevel, component: m.component, manifests: [] }));
    t.manifests.push(m);
  }
  return { runlevel, tasks: [...tasks.values()] };
}

export function taskGraph(manifests: Manifest[]): Stage[] {
  // By runlevel as a number ('0000_5_' and '0000_05_' are one runlevel), then by file name.
  const sorted = [...manifests].sort(
    (a, b) => a.runlevel - b.runlevel || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0),
  );
  const stages: Stage[] = [];
  let pending: Manifest[] = [];
  const flush = (): void => {
    if (pending.length) stages.push(stage(pending[0]!.runlevel, pending));
    pending = [];
  };
  for (const m of sorted) {
    if (pending.length && pending[0]!.runlevel !== m.runlevel) flush();
    if (isJob(m)) {
      flush();
      stages.push(stage(m.runlevel, [m]));
    } else {
      pending.push(m);
    }
  }
  flush();
  return stages;
}

/**
 * Runs the tasks of a stage with at most `workers` at once. After a failure no new task starts; the ones
 * already running finish, then the stage rejects with an AggregateError of every failure.
 */
export async function runStage(stage: Stage, workers: number, runTask: (t: Task) => Promise<void>): Promise<void> {
  if (!(workers >= 1)) throw new RangeError(`workers must be at least 1, not ${workers}`);
  const failures: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (failures.length === 0 && next < stage.tasks.length) {
      const task = stage.tasks[next++]!;
      try {
        await runTask(task);
      } catch (err) {
        failures.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.floor(workers), stage.tasks.length) }, worker));
  if (failures.length) {
    const why = failures.map((e) => (e instanceof Error ? e.message : String(e))).join('; ');
    throw new AggregateError(
      failures,
      `runlevel ${stage.runlevel}: ${failures.length} of ${stage.tasks.length} tasks failed: ${why}`,
    );
  }
}
