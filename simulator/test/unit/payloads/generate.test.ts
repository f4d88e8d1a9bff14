// The demo release payload the simulator generates: shaped like a real one (which the product's
// loadPayload reads back), deterministic and depending on its input. The product's payload store,
// loadPayload's refusals and the task graph are tested in test/unit/payload/ (store, load, taskGraph).
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { OPERATOR_NAMES } from '@cincy/simulator/controllers/inventory';
import { generatePayload, payloadFiles } from '@cincy/simulator/payloads/generate';
import { loadPayload, MANIFEST_NAME, type KubeDoc, type Manifest } from 'cincy/payload/load';
import { PayloadStore } from 'cincy/payload/store';
import { taskGraph } from 'cincy/payload/taskGraph';
import { useCleanup } from '../../../../test/support/cleanup.js';

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

describe('payloadFiles', () => {
  it('holds what generatePayload writes: each manifest as its YAML reads back, the JSON files as written', () => {
    const o = { version: '4.16.5', image: IMAGE, previous: ['4.16.4'], url: 'https://errata.example/1' };
    const files = payloadFiles(o);
    const written = generatePayload(o);
    expect([...files.keys()]).toEqual([...written.keys()]);
    for (const [file, content] of files) {
      if (typeof content === 'string') expect(content, file).toBe(written.get(file));
      else
        expect(JSON.parse(JSON.stringify(content)), file).toEqual(
          parseAllDocuments(written.get(file)!).map((d) => d.toJS()),
        );
    }
  });
});
