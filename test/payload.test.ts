// Release payloads: the generated payload's shape, the store, loadPayload's refusals, the task graph's
// ordering guarantees (a seeded property test over random payloads) and the `cincy payload` commands.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { OPERATOR_NAMES } from '@cincy/simulator/controllers/inventory';
import { generatePayload } from '@cincy/simulator/payloads/generate';
import { loadPayload, MANIFEST_NAME, PayloadError, type KubeDoc, type Manifest } from '../src/payload/load.js';
import { PayloadStore } from '../src/payload/store.js';
import { runStage, taskGraph, type Stage } from '../src/payload/taskGraph.js';
import { cincy, cincyAsync, serveCli, useCleanup } from './support/cli.js';
import { release, writeTree } from './support/trees.js';

const cleanup = useCleanup();
const HEX = createHash('sha256').update('release 4.16.5').digest('hex');
const IMAGE = `quay.example.com/ocp/release@sha256:${HEX}`;
const KINDS = [
  'Namespace',
  'ServiceAccount',
  'ConfigMap',
  'Service',
  'Deployment',
  'DaemonSet',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'CustomResourceDefinition',
  'ClusterOperator',
  'Job',
];

type Deployment = KubeDoc & {
  spec: { template: { spec: { containers: Array<{ image: string; env?: Array<{ name: string; value: string }> }> } } };
};
const docsOf = (p: { manifests: Manifest[] }, kind: string): Array<{ m: Manifest; d: KubeDoc }> =>
  p.manifests.flatMap((m) => m.docs.filter((d) => d.kind === kind).map((d) => ({ m, d })));

describe('generatePayload', () => {
  const files = generatePayload({
    version: '4.16.5',
    image: IMAGE,
    previous: ['4.16.4', '4.15.20'],
    url: 'https://access.example.com/errata/RHBA-2024:1',
  });

  it('makes a payload shaped like a real one, which loadPayload reads back', () => {
    const store = new PayloadStore(cleanup.dir());
    const path = store.write(IMAGE, files);
    expect(path).toBe(store.pathOf(IMAGE));
    const p = loadPayload(path);
    expect(p.version).toBe('4.16.5');
    expect(p.metadata).toEqual({
      kind: 'cincinnati-metadata-v0',
      version: '4.16.5',
      previous: ['4.15.20', '4.16.4'],
      metadata: { url: 'https://access.example.com/errata/RHBA-2024:1' },
    });
    expect(p.manifests.length).toBeGreaterThanOrEqual(500);
    expect(p.manifests.length).toBeLessThanOrEqual(700);
    expect(new Set(p.manifests.map((m) => m.runlevel)).size).toBeGreaterThanOrEqual(10);
    for (const m of p.manifests) {
      expect(MANIFEST_NAME.exec(m.file)?.[2], m.file).toBe(m.component);
      expect(m.file.startsWith(`0000_${String(m.runlevel).padStart(2, '0')}_${m.component}_`), m.file).toBe(true);
      for (const d of m.docs) expect(KINDS, `${m.file}: ${d.kind}`).toContain(d.kind);
      expect(Buffer.byteLength(files.get(m.file)!), m.file).toBeLessThan(2048);
    }

    // One ClusterOperator manifest per operator, each asking for the release version.
    const cos = docsOf(p, 'ClusterOperator');
    expect(cos.length).toBeGreaterThanOrEqual(30);
    expect(cos.map((c) => c.d.metadata.name).sort()).toEqual([...OPERATOR_NAMES].sort());
    for (const { m, d } of cos) {
      expect(m.file).toMatch(/^0000_\d+_[a-z0-9-]+_\d\d_clusteroperator\.yaml$/);
      const versions = (d.status as { versions: Array<{ name: string; version: string }> }).versions;
      expect(versions[0]).toEqual({ name: 'operator', version: '4.16.5' });
      for (const v of versions) expect(v.version).toBe('4.16.5');
    }
    expect(cos.find((c) => c.d.metadata.name === 'kube-apiserver')!.d.status).toMatchObject({
      versions: expect.arrayContaining([{ name: 'kube-apiserver', version: '4.16.5' }]),
    });

    // Each operator's Deployment is annotated with its ClusterOperator, runs an image of image-references and carries RELEASE_VERSION.
    const deployments = docsOf(p, 'Deployment').map(({ m, d }) => ({ m, d: d as Deployment }));
    const images = new Set(p.images.values());
    for (const co of OPERATOR_NAMES) {
      const own = deployments.filter(
        ({ d }) =>
          d.metadata.annotations &&
          (d.metadata.annotations as Record<string, string>)['operator.cincy.io/cluster-operator'] === co,
      );
      expect(own, co).toHaveLength(1);
      const container = own[0]!.d.spec.template.spec.containers[0]!;
      expect(container.env?.[0]).toEqual({ name: 'RELEASE_VERSION', value: '4.16.5' });
      expect(images.has(container.image), container.image).toBe(true);
      expect(own[0]!.m.runlevel).toBe(cos.find((c) => c.d.metadata.name === co)!.m.runlevel);
    }
    for (const [tag, ref] of p.images)
      expect(ref).toBe(
        `quay.example.com/ocp/ocp-v4.0-art-dev@sha256:${createHash('sha256').update(`4.16.5${tag}`).digest('hex')}`,
      );

    // The CVO comes first and runs the release image itself; the MCO sits at 80, with at most one runlevel of operators after it.
    const cvo = p.manifests.filter((m) => m.component === 'cluster-version-operator');
    expect(cvo.length).toBeGreaterThan(3);
    expect(new Set(cvo.map((m) => m.runlevel))).toEqual(new Set([0]));
    const cvoDeployment = deployments.find(
      ({ d }) => d.metadata.namespace === 'openshift-cluster-version' && d.metadata.name === 'cluster-version-operator',
    )!;
    expect(cvoDeployment.m.runlevel).toBe(0);
    expect(cvoDeployment.d.spec.template.spec.containers[0]!.image).toBe(IMAGE);
    expect(cvoDeployment.d.metadata.annotations).not.toHaveProperty('operator.cincy.io/cluster-operator');
    const mco = deployments.find(
      ({ d }) =>
        d.metadata.namespace === 'openshift-machine-config-operator' && d.metadata.name === 'machine-config-operator',
    )!;
    expect(mco.d.metadata.annotations).toHaveProperty(['operator.cincy.io/cluster-operator'], 'machine-config');
    expect(cos.find((c) => c.d.metadata.name === 'machine-config')!.m).toMatchObject({
      runlevel: 80,
      component: 'machine-config',
    });
    expect(new Set(cos.map((c) => c.m.runlevel).filter((r) => r > 80)).size).toBeLessThanOrEqual(1);

    // Exactly one Job, which splits its runlevel in the task graph.
    const jobs = docsOf(p, 'Job');
    expect(jobs).toHaveLength(1);
    const stages = taskGraph(p.manifests);
    const jobStage = stages.findIndex((s) => s.tasks.some((t) => t.manifests.includes(jobs[0]!.m)));
    expect(stages[jobStage]!.tasks.flatMap((t) => t.manifests)).toEqual([jobs[0]!.m]);
    expect(stages[jobStage - 1]!.runlevel).toBe(jobs[0]!.m.runlevel);
    expect(stages[jobStage + 1]!.runlevel).toBe(jobs[0]!.m.runlevel);

    // What the store wrote is what was generated, document for document.
    expect(readdirSync(path).sort()).toEqual([...files.keys()].sort());
    for (const m of p.manifests) expect(m.docs).toEqual(parseAllDocuments(files.get(m.file)!).map((d) => d.toJS()));
  });

  it('is deterministic and depends on its input', () => {
    const again = generatePayload({
      version: '4.16.5',
      image: IMAGE,
      previous: ['4.15.20', '4.16.4'],
      url: 'https://access.example.com/errata/RHBA-2024:1',
    });
    expect([...again]).toEqual([...files]);
    const other = generatePayload({ version: '4.16.6', image: IMAGE });
    expect([...other.keys()]).toEqual([...files.keys()]);
    expect(other.get('0000_80_machine-config_06_deployment.yaml')).not.toBe(
      files.get('0000_80_machine-config_06_deployment.yaml'),
    );
    expect(() => generatePayload({ version: '4.16', image: IMAGE })).toThrow(/4\.16 is not a semantic version/);
  });
});

describe('PayloadStore', () => {
  it('keys payloads by image digest and replaces one whole', () => {
    const store = new PayloadStore(cleanup.dir());
    expect(store.digestOf(IMAGE)).toBe(`sha256:${HEX}`);
    expect(store.pathOf(IMAGE)).toBe(join(store.dir, 'sha256', HEX, 'release-manifests'));
    for (const tagged of ['quay.example.com/ocp/release:4.16.5', 'quay.example.com/ocp/release@sha256:abc']) {
      expect(() => store.digestOf(tagged)).toThrow(`${tagged}: a release image must be pinned by digest`);
      expect(store.has(tagged)).toBe(false);
    }
    expect(store.has(IMAGE)).toBe(false);
    store.write(IMAGE, generatePayload({ version: '4.16.5', image: IMAGE }));
    expect(store.has(IMAGE)).toBe(true);
    store.write(IMAGE, generatePayload({ version: '4.16.6', image: IMAGE }));
    expect(loadPayload(store.pathOf(IMAGE)).version).toBe('4.16.6');
    expect(readdirSync(join(store.dir, 'sha256'))).toEqual([HEX]); // no staging or old copy left behind
    expect(() => store.write(IMAGE, new Map([['../escape.yaml', '']]))).toThrow(
      '../escape.yaml: not a plain file name',
    );
  });
});

describe('loadPayload refuses', () => {
  const metadata = JSON.stringify({ kind: 'cincinnati-metadata-v0', version: '4.16.5', previous: [] });
  const references = JSON.stringify({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: '4.16.5' },
    spec: { tags: [{ name: 'cli', from: { kind: 'DockerImage', name: IMAGE } }] },
  });
  const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: b\n';
  function payload(files: Record<string, string | undefined>): string {
    const dir = join(cleanup.dir(), 'release-manifests');
    mkdirSync(dir);
    const all: Record<string, string | undefined> = {
      'release-metadata': metadata,
      'image-references': references,
      '0000_50_demo_00_config.yaml': configMap,
      ...files,
    };
    for (const [name, content] of Object.entries(all))
      if (content !== undefined) writeFileSync(join(dir, name), content);
    return dir;
  }
  function refusal(files: Record<string, string | undefined>): PayloadError {
    try {
      loadPayload(payload(files));
    } catch (err) {
      expect(err).toBeInstanceOf(PayloadError);
      return err as PayloadError;
    }
    throw new Error('loaded');
  }

  it('accepts the minimal payload, skipping empty documents', () => {
    const p = loadPayload(
      payload({
        '0000_50_demo_01_two.yaml': `---\n${configMap}---\n---\n${configMap.replace('name: a', 'name: c')}`,
        'README.md': 'not a manifest',
      }),
    );
    expect(p.manifests.map((m) => [m.file, m.runlevel, m.component, m.docs.length])).toEqual([
      ['0000_50_demo_00_config.yaml', 50, 'demo', 1],
      ['0000_50_demo_01_two.yaml', 50, 'demo', 2],
    ]);
    expect(p.images).toEqual(new Map([['cli', IMAGE]]));
  });

  it.each([
    [
      'a bad file name',
      { 'cvo-deployment.yaml': configMap },
      'cvo-deployment.yaml',
      'cvo-deployment.yaml: does not match 0000_<runlevel>_<component>_<name>.yaml',
    ],
    [
      'a name with no `_` after the component',
      { '0000_50_demo.yaml': configMap },
      '0000_50_demo.yaml',
      'does not match',
    ],
    [
      'invalid YAML',
      { '0000_50_demo_02_bad.yaml': 'apiVersion: v1\nkind: [ConfigMap\n' },
      '0000_50_demo_02_bad.yaml',
      '0000_50_demo_02_bad.yaml: document 1: invalid YAML',
    ],
    [
      'a document without kind',
      { '0000_50_demo_02_two.yaml': `${configMap}---\napiVersion: v1\nmetadata:\n  name: x\n` },
      '0000_50_demo_02_two.yaml',
      '0000_50_demo_02_two.yaml: document 2: kind: must be a non-empty string',
    ],
    [
      'a document without metadata.name',
      { '0000_50_demo_02_x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n' },
      '0000_50_demo_02_x.yaml',
      'document 1: metadata.name: must be a non-empty string',
    ],
    [
      'a list document',
      { '0000_50_demo_02_x.json': '[1, 2]' },
      '0000_50_demo_02_x.json',
      'document 1: must be an object',
    ],
    [
      'too many aliases',
      { '0000_50_demo_02_x.yaml': `a: &x [1]\nb: [${Array(150).fill('*x').join(', ')}]\n` },
      '0000_50_demo_02_x.yaml',
      'alias',
    ],
    [
      'a file over 4 MiB',
      { '0000_50_demo_02_big.yaml': `${configMap}data:\n  x: "${'x'.repeat(4 * 1024 * 1024)}"\n` },
      '0000_50_demo_02_big.yaml',
      'more than the 4 MiB',
    ],
    [
      'a version that is not semver',
      { 'release-metadata': metadata.replace('4.16.5', '4.16') },
      'release-metadata',
      'release-metadata: version: "4.16" is not a semantic version',
    ],
    [
      'another metadata kind',
      { 'release-metadata': metadata.replace('cincinnati-metadata-v0', 'v1') },
      'release-metadata',
      'release-metadata: kind:',
    ],
    [
      'a missing release-metadata',
      { 'release-metadata': undefined },
      'release-metadata',
      'release-metadata: not found in',
    ],
    [
      'a missing image-references',
      { 'image-references': undefined },
      'image-references',
      'image-references: not found in',
    ],
    [
      'image-references of another version',
      { 'image-references': references.replace('"4.16.5"', '"4.16.4"') },
      'image-references',
      'metadata.name: "4.16.4" is not the release-metadata version 4.16.5',
    ],
  ])('%s', (_what, files, file, message) => {
    const err = refusal(files);
    expect(err.file).toBe(file);
    expect(err.message.startsWith(`${file}: `), err.message).toBe(true);
    expect(err.message).toContain(message);
  });
});

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

describe('cincy payload', () => {
  it('creates, lists and extracts payloads', () => {
    const store = cleanup.dir();
    const created = cincy([
      'payload',
      'create',
      '--version',
      '4.16.5',
      '--image',
      IMAGE,
      '--previous',
      '4.16.4,4.16.3',
      '--store',
      store,
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`wrote 4.16.5 (${IMAGE}) to ${join(store, 'sha256', HEX, 'release-manifests')}`);
    expect(created.stdout).toMatch(/\d{3} manifests, 33 cluster operators, 1\d runlevels: 0, 3, 5, /);
    expect(loadPayload(new PayloadStore(store).pathOf(IMAGE)).metadata.previous).toEqual(['4.16.3', '4.16.4']);

    const ls = cincy(['payload', 'ls'], { CINCY_PAYLOAD_STORE: store });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(
      new RegExp(`^DIGEST +VERSION +MANIFESTS +OPERATORS +RUNLEVELS\\nsha256:${HEX} +4\\.16\\.5 +\\d+ +33 +\\d+\\n$`),
    );

    const to = join(cleanup.dir(), 'manifests');
    const extracted = cincy(['payload', 'extract', IMAGE, '--to', to, '--store', store]);
    expect(extracted.code, extracted.stderr).toBe(0);
    expect(readdirSync(to).sort()).toEqual(readdirSync(new PayloadStore(store).pathOf(IMAGE)).sort());
    expect(JSON.parse(readFileSync(join(to, 'release-metadata'), 'utf8'))).toMatchObject({ version: '4.16.5' });

    const missing = cincy(['payload', 'extract', IMAGE.replace(HEX, 'f'.repeat(64)), '--to', to, '--store', store]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('not in the payload store');
  });

  it('refuses flags it cannot use, naming them', () => {
    const store = cleanup.dir();
    const cases: Array<[string[], string]> = [
      [
        ['--version', '4.16.5', '--image', 'quay.example.com/ocp/release:4.16.5'],
        '--image: quay.example.com/ocp/release:4.16.5: a release image must be pinned by digest',
      ],
      [['--version', '4.16', '--image', IMAGE], '--version: 4.16 is not a semantic version'],
      [['--version', '4.16.5'], '--image: required'],
      [
        ['--version', '4.16.5', '--image', IMAGE, '--previous', '4.16.4,nope'],
        '--previous: nope is not a semantic version',
      ],
    ];
    for (const [args, message] of cases) {
      const r = cincy(['payload', 'create', ...args, '--store', store]);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(message);
    }
    expect(existsSync(join(store, 'sha256'))).toBe(false);
  });

  it('creates the payload of a release a cincy server holds', async () => {
    const tree = writeTree(join(cleanup.dir(), 'tree'), {
      'releases/amd64/4.16.5.json': release('4.16.5', {
        previous: ['4.16.4'],
        metadata: { url: 'https://errata.example/RHBA-1' },
        payload: IMAGE,
      }),
    });
    const served = await serveCli(['--db', ':memory:', '--graph-data', tree], cleanup);
    const store = cleanup.dir();
    const r = await cincyAsync(['payload', 'create', '--release', '4.16.5', '--server', served.url, '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    const p = loadPayload(new PayloadStore(store).pathOf(IMAGE));
    expect(p.metadata).toEqual({
      kind: 'cincinnati-metadata-v0',
      version: '4.16.5',
      previous: ['4.16.4'],
      metadata: { url: 'https://errata.example/RHBA-1' },
    });
    const unknown = await cincyAsync([
      'payload',
      'create',
      '--release',
      '4.16.9',
      '--server',
      served.url,
      '--store',
      store,
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--release: ');
    expect(unknown.stderr).toContain('no release 4.16.9 for amd64');
  });
});
