// `cincy operator` on a real API server, as an OpenShift administrator replacing OSUS meets it: the
// UpdateService oc-mirror writes (updateService.yaml, verbatim) applied with kubectl, the cluster's pull
// secret and registry CA where OpenShift keeps them, a mirror registry over TLS with credentials laid out
// as oc-mirror lays it out. The API server runs no pods, so the Deployment the operator made is run here
// as a process — its arguments, environment and mounted ConfigMaps and Secrets as the API server holds
// them — and the graph is asked for at the policyEngineURI path. A new graphDataImage, a new CA and a spec
// that cannot be served are then each seen through to the Deployment, with nothing deleted by hand.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cincyAsync, useCleanup } from '../support/cli.js';
import { kubectl, kubectlAvailable } from '../support/kubectl.js';
import { OciLayout } from '../support/ociLayout.js';
import { deploymentOf, runPodLocally, type DeploymentJson } from '../support/podAsProcess.js';
import { startCincy, until } from '../support/processes.js';
import { KUBE_DIR, realApiServerAvailable, startRealApiServer } from '../support/realApiServer.js';
import { registryAvailable, startRegistry } from '../support/registry.js';
import { releaseImage } from '../support/releaseImages.js';
import { skopeoCopy } from '../support/skopeo.js';

const cleanup = useCleanup();
const NS = 'openshift-update-service';
const NAME = 'update-service-oc-mirror';
const HASH = 'updateservice.operator.openshift.io/inputs-hash';

// The fields of OpenShift's image.config.openshift.io the operator reads, as a CRD of this test's own:
// ../shared/kube holds no Image CRD.
const IMAGE_CONFIG_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'images.config.openshift.io' },
  spec: {
    group: 'config.openshift.io',
    names: { kind: 'Image', listKind: 'ImageList', plural: 'images', singular: 'image' },
    scope: 'Cluster',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { additionalTrustedCA: { type: 'object', properties: { name: { type: 'string' } } } },
              },
            },
          },
        },
      },
    ],
  },
};

interface UpdateServiceJson {
  spec: { graphDataImage: string };
  status?: {
    policyEngineURI?: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

function graphTree(dir: string, channels: Record<string, string[]>): string {
  mkdirSync(join(dir, 'channels'), { recursive: true });
  writeFileSync(join(dir, 'version'), '1.2.0\n');
  for (const [name, versions] of Object.entries(channels))
    writeFileSync(join(dir, 'channels', `${name}.yaml`), stringify({ name, versions }));
  return dir;
}

type Kubectl = (args: string[], input?: string, config?: string) => Promise<string>;

/** A real API server with the UpdateService and Route CRDs, and kubectl on it that throws on a failure. */
async function clusterWithOperatorCrds(): Promise<{ kubeconfig: string; k: Kubectl }> {
  const { kubeconfig } = await startRealApiServer(join(cleanup.dir(), 'kube'), cleanup);
  const k: Kubectl = async (args, input, config = kubeconfig) => {
    const r = await kubectl(config, args, input);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  await k(['create', '-f', join(KUBE_DIR, 'crds-optional', 'updateservice.operator.openshift.io_updateservices.yaml')]);
  // The Route CRD's enum holds a null, which client-side validation refuses.
  await k(['create', '--validate=false', '-f', join(KUBE_DIR, 'crds-optional', 'route.openshift.io_routes.crd.yaml')]);
  return { kubeconfig, k };
}

describe.runIf(realApiServerAvailable() && registryAvailable() && kubectlAvailable())('cincy operator', () => {
  it(
    "reconciles oc-mirror's updateService.yaml into a Deployment that serves the mirror; new graphDataImage and CA roll it",
    { timeout: 240_000 },
    async () => {
      // The mirror: TLS from a CA of its own, basic auth, release images where oc-mirror v2 puts them.
      const reg = await startRegistry(
        { dir: cleanup.dir(), tls: true, auth: { user: 'mirror', password: 's3cret' } },
        cleanup,
      );
      const layout = new OciLayout(cleanup.dir());
      const releases = [
        ['4.16.0', []],
        ['4.16.1', ['4.16.0']],
        ['4.16.2', ['4.16.0', '4.16.1']],
      ] as const;
      for (const [version, previous] of releases) {
        await releaseImage(layout, { version, previous: [...previous], tag: version });
        await skopeoCopy(layout.dir, version, reg, `openshift/release-images:${version}-x86_64`);
      }
      const registryFlags = ['--registry-ca', reg.caFile!, '--registry-credentials', reg.credentialsFile!];
      const push = async (tree: string, tag: string): Promise<string> => {
        const r = await cincyAsync([
          'graph-data',
          'push',
          tree,
          '--image',
          `${reg.host}/openshift/graph-image:${tag}`,
          ...registryFlags,
        ]);
        expect(r.code, r.stderr).toBe(0);
        return r.stdout.trim();
      };
      await push(graphTree(cleanup.dir(), { 'stable-4.16': ['4.16.0', '4.16.1', '4.16.2'] }), 'latest');

      // The cluster: the CRDs, its pull secret and the registry CA named by image.config.openshift.io.
      const { kubeconfig, k } = await clusterWithOperatorCrds();
      await k(['create', '-f', '-'], JSON.stringify(IMAGE_CONFIG_CRD));
      await until(
        'the Image and UpdateService kinds served',
        async () => (await k(['api-resources', '-o', 'name'])).includes('images.config.openshift.io') || undefined,
      );
      await k(['create', 'namespace', 'openshift-config']);
      await k(['create', 'namespace', NS]);
      const ca = readFileSync(reg.caFile!, 'utf8');
      await k([
        'create',
        '-n',
        'openshift-config',
        'secret',
        'generic',
        'pull-secret',
        '--type=kubernetes.io/dockerconfigjson',
        `--from-file=.dockerconfigjson=${reg.credentialsFile!}`,
      ]);
      await k([
        'create',
        '-n',
        'openshift-config',
        'configmap',
        'registry-cas',
        `--from-file=updateservice-registry=${reg.caFile!}`,
      ]);
      await k(
        ['create', '-f', '-'],
        stringify({
          apiVersion: 'config.openshift.io/v1',
          kind: 'Image',
          metadata: { name: 'cluster' },
          spec: {},
        }),
      );
      // The guide's command, as an administrator types it.
      await k([
        'patch',
        'image.config.openshift.io',
        'cluster',
        '--type',
        'merge',
        '-p',
        '{"spec":{"additionalTrustedCA":{"name":"registry-cas"}}}',
      ]);

      // oc-mirror v2's updateService.yaml, as it writes it, created in the namespace OSUS documents.
      const updateServiceYaml = [
        'apiVersion: updateservice.operator.openshift.io/v1',
        'kind: UpdateService',
        'metadata:',
        '  annotations:',
        '    createdAt: Friday, 27-Nov-26 09:12:44 UTC',
        '    createdBy: oc-mirror v2',
        '    oc-mirror_version: 4.20.0-202611100000.p0.g0000000.assembly.stream.el9-0000000',
        `  name: ${NAME}`,
        'spec:',
        `  graphDataImage: ${reg.host}/openshift/graph-image:latest`,
        `  releases: ${reg.host}/openshift/release-images`,
        '  replicas: 2',
        'status: {}',
        '',
      ].join('\n');
      const file = join(cleanup.dir(), 'updateService.yaml');
      writeFileSync(file, updateServiceYaml);
      await k(['create', '-f', file, '-n', NS]);

      const operator = await startCincy(
        [
          'operator',
          '--kubeconfig',
          kubeconfig,
          '--operand-image',
          'quay.example.com/cincy/cincy:1.0',
          '--log-format',
          'json',
        ],
        /operator started/,
        cleanup,
      );
      const updateService = async (): Promise<UpdateServiceJson> =>
        JSON.parse(await k(['get', 'updateservice', NAME, '-n', NS, '-o', 'json'])) as UpdateServiceJson;
      const condition = (us: UpdateServiceJson, type: string) => us.status?.conditions?.find((c) => c.type === type);

      // No router here: the test admits the Route as OpenShift's router would.
      await until(
        'the Route',
        async () => (await kubectl(kubeconfig, ['get', 'route', `${NAME}-route`, '-n', NS])).code === 0 || undefined,
      );
      const route = JSON.parse(await k(['get', 'route', `${NAME}-route`, '-n', NS, '-o', 'json'])) as { spec: object };
      expect(route.spec).toMatchObject({
        to: { kind: 'Service', name: `${NAME}-policy-engine` },
        tls: { termination: 'edge' },
      });
      const host = `${NAME}-route-${NS}.apps.cluster.example.com`;
      await k([
        'patch',
        'route',
        `${NAME}-route`,
        '-n',
        NS,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({
          status: { ingress: [{ host, routerName: 'default', conditions: [{ type: 'Admitted', status: 'True' }] }] },
        }),
      ]);
      const ready = await until('policyEngineURI', async () => {
        const us = await updateService();
        return us.status?.policyEngineURI ? us : undefined;
      });
      expect(ready.status!.policyEngineURI).toBe(`https://${host}`);
      expect(condition(ready, 'ReconcileCompleted')).toMatchObject({ status: 'True', reason: 'Success' });
      expect(condition(ready, 'RegistryCACertFound')).toMatchObject({ status: 'True', reason: 'CACertFound' });
      expect(condition(ready, 'ReconcileError')).toMatchObject({ status: 'False' });
      // What OSUS makes, by its names: scripts and docs written for it still find them.
      const listed = await k([
        'get',
        'deployment,service,poddisruptionbudget,configmap,secret',
        '-n',
        NS,
        '-l',
        `app=${NAME}`,
        '-o',
        'name',
      ]);
      expect(listed.trim().split('\n').sort()).toEqual([
        `configmap/${NAME}-env`,
        `configmap/${NAME}-trusted-ca`,
        `deployment.apps/${NAME}`,
        `poddisruptionbudget.policy/${NAME}`,
        `secret/${NAME}-pull-secret`,
        `service/${NAME}-policy-engine`,
      ]);
      const first = await deploymentOf(kubeconfig, NS, NAME);
      expect(JSON.parse(await k(['get', 'pdb', NAME, '-n', NS, '-o', 'json'])).spec.minAvailable).toBe(1);

      // The pod, run here as the kubelet would start it, serves the mirror's graph at the policyEngineURI path.
      const graphAt = async (url: string, channel: string): Promise<string[]> => {
        const base = `${url}${new URL(ready.status!.policyEngineURI!).pathname.replace(/\/$/, '')}`;
        const res = await fetch(`${base}/api/upgrades_info/v1/graph?channel=${channel}`, {
          headers: { accept: 'application/json' },
        });
        const g = (await res.json()) as { nodes: Array<{ version: string; payload: string }> };
        return g.nodes.map((n) => `${n.version} ${n.payload.replace(/@sha256:.*/, '@sha256')}`).sort();
      };
      let pod = await runPodLocally(kubeconfig, NS, NAME, cleanup);
      expect(readFileSync(pod.env.CINCY_REGISTRY_CA!, 'utf8')).toBe(ca);
      const servedGraph = await until('the mirror scraped', async () => {
        const nodes = await graphAt(pod.url, 'stable-4.16');
        return nodes.length === 3 ? nodes : undefined;
      });
      expect(servedGraph).toEqual(
        ['4.16.0', '4.16.1', '4.16.2'].map((v) => `${v} ${reg.host}/openshift/release-images@sha256`),
      );

      // The cluster pointed at it (the guide's last step, with the pod's local address for the Route's host):
      // what the cluster-version-operator does with the answer, the agent does here.
      const upstream = `${pod.url}${new URL(ready.status!.policyEngineURI!).pathname.replace(/\/$/, '')}/api/upgrades_info/v1/graph`;
      const payload = `${reg.host}/openshift/release-images@sha256:${'0'.repeat(64)}`;
      await k(
        ['create', '-f', '-'],
        stringify({
          apiVersion: 'config.openshift.io/v1',
          kind: 'ClusterVersion',
          metadata: { name: 'version' },
          spec: { clusterID: '4f6a8a54-9d73-4c1e-8a1b-6f0d0e1c2b3a', channel: 'stable-4.16' },
        }),
      );
      const at = '2026-11-27T09:00:00Z';
      await k([
        'patch',
        'clusterversion',
        'version',
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({
          status: {
            desired: { version: '4.16.0', image: payload },
            history: [
              {
                state: 'Completed',
                version: '4.16.0',
                image: payload,
                startedTime: at,
                completionTime: at,
                verified: false,
              },
            ],
            observedGeneration: 1,
            versionHash: 'operator-e2e',
            availableUpdates: [],
          },
        }),
      ]);
      await k(['patch', 'clusterversion', 'version', '--type', 'merge', '-p', JSON.stringify({ spec: { upstream } })]);
      const agent = await cincyAsync(['agent', '--once', '--no-update', '--kubeconfig', kubeconfig]);
      expect(agent.code, agent.stderr).toBe(0);
      const cv = JSON.parse(await k(['get', 'clusterversion', 'version', '-o', 'json'])) as {
        status: { availableUpdates: Array<{ version: string; image: string }> | null };
      };
      expect(cv.status.availableUpdates?.map((u) => u.version).sort()).toEqual(['4.16.1', '4.16.2']);
      expect(
        cv.status.availableUpdates?.every((u) => u.image.startsWith(`${reg.host}/openshift/release-images@sha256:`)),
      ).toBe(true);

      const setGraphDataImage = (image: string): Promise<string> =>
        k([
          'patch',
          'updateservice',
          NAME,
          '-n',
          NS,
          '--type=merge',
          '-p',
          JSON.stringify({ spec: { graphDataImage: image } }),
        ]);
      /** The Deployment once its pod template's inputs hash differs from `before`'s. */
      const rolledFrom = (before: DeploymentJson, why: string): Promise<DeploymentJson> =>
        until(`${why} to roll the Deployment`, async () => {
          const d = await deploymentOf(kubeconfig, NS, NAME);
          const hashOf = (x: DeploymentJson) => x.spec.template.metadata.annotations?.[HASH];
          return hashOf(d) !== hashOf(before) ? d : undefined;
        });

      // A new graph image, named by digest as oc-mirror v1 names it: the Deployment changes, its pods roll.
      const second = await push(
        graphTree(cleanup.dir(), { 'stable-4.16': ['4.16.0', '4.16.1', '4.16.2'], 'fast-4.16': ['4.16.1', '4.16.2'] }),
        'v2',
      );
      expect(second).toMatch(new RegExp(`^${reg.host}/openshift/graph-image@sha256:[0-9a-f]{64}$`));
      await setGraphDataImage(second);
      const rolled = await rolledFrom(first, 'the new graph image');
      expect(rolled.metadata.uid).toBe(first.metadata.uid);
      await pod.stop();
      pod = await runPodLocally(kubeconfig, NS, NAME, cleanup);
      expect(pod.env.CINCY_GRAPH_DATA_IMAGE).toBe(second);
      expect(
        await until('the new channel', async () => {
          const nodes = await graphAt(pod.url, 'fast-4.16');
          return nodes.length === 2 ? nodes : undefined;
        }),
      ).toEqual(['4.16.1', '4.16.2'].map((v) => `${v} ${reg.host}/openshift/release-images@sha256`));

      // A new CA bundle in the ConfigMap the cluster names: copied, and the pods roll to read it.
      const bundle = `${ca}\n${ca}`;
      await k(
        [
          'create',
          'configmap',
          'registry-cas',
          '-n',
          'openshift-config',
          `--from-literal=updateservice-registry=${bundle}`,
          '--dry-run=client',
          '-o',
          'yaml',
        ],
        undefined,
      ).then((y) => k(['replace', '-f', '-'], y));
      const recerted = await rolledFrom(rolled, 'the new CA');
      expect(recerted.metadata.uid).toBe(first.metadata.uid);
      expect(
        JSON.parse(await k(['get', 'configmap', `${NAME}-trusted-ca`, '-n', NS, '-o', 'json'])).data[
          'updateservice-registry'
        ],
      ).toBe(bundle);

      // A spec that cannot be served says why in the status and leaves the Deployment as it was.
      await setGraphDataImage('graph-image:latest');
      const refused = await until('the refusal in the status', async () => {
        const us = await updateService();
        return condition(us, 'ReconcileCompleted')?.status === 'False' ? us : undefined;
      });
      expect(condition(refused, 'ReconcileCompleted')).toMatchObject({ reason: 'InvalidSpec' });
      expect(condition(refused, 'ReconcileCompleted')!.message).toContain("spec.graphDataImage: 'graph-image:latest'");
      expect(condition(refused, 'ReconcileError')).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
      const kept = await deploymentOf(kubeconfig, NS, NAME);
      expect(kept.metadata.generation).toBe(recerted.metadata.generation);
      expect(operator.output()).toContain('UpdateService not reconciled');
      await pod.stop();
    },
  );

  it(
    'deploy/operator gives the operator what it needs: its service account reconciles and watches, nothing forbidden',
    { timeout: 120_000 },
    async () => {
      const { kubeconfig, k } = await clusterWithOperatorCrds();
      const deployDir = join(import.meta.dirname, '..', '..', 'deploy', 'operator');
      await k(['apply', '-k', deployDir]);
      const operatorDeployment = JSON.parse(
        await k(['get', 'deployment', 'cincy-operator', '-n', NS, '-o', 'json']),
      ) as {
        spec: { template: { spec: { serviceAccountName: string; containers: Array<{ args: string[] }> } } };
      };
      expect(operatorDeployment.spec.template.spec.containers[0]!.args).toEqual(['operator', '--in-cluster']);
      // The pod's credentials, as the kubelet would mount them: a token of its service account.
      const token = (
        await k(['create', 'token', operatorDeployment.spec.template.spec.serviceAccountName, '-n', NS])
      ).trim();
      const saConfig = join(cleanup.dir(), 'operator.kubeconfig');
      writeFileSync(saConfig, readFileSync(kubeconfig));
      await k(['config', 'set-credentials', 'cincy-operator', `--token=${token}`], undefined, saConfig);
      await k(['config', 'set-context', '--current', '--user=cincy-operator'], undefined, saConfig);
      await k(
        ['create', '-n', NS, '-f', '-'],
        stringify({
          apiVersion: 'updateservice.operator.openshift.io/v1',
          kind: 'UpdateService',
          metadata: { name: 'sample' },
          spec: {
            releases: 'mirror.example.com/openshift/release-images',
            graphDataImage: 'mirror.example.com/openshift/graph-image:latest',
            replicas: 1,
          },
        }),
      );
      const operator = await startCincy(
        [
          'operator',
          '--kubeconfig',
          saConfig,
          '--operand-image',
          'registry.example.com/cincy:0.1.0',
          '--log-format',
          'json',
          '--log-level',
          'debug',
        ],
        /operator started/,
        cleanup,
      );
      await until('the status', async () => {
        const us = JSON.parse(await k(['get', 'updateservice', 'sample', '-n', NS, '-o', 'json'])) as UpdateServiceJson;
        return us.status?.conditions?.some((c) => c.type === 'ReconcileCompleted' && c.status === 'True') || undefined;
      });
      expect(
        (await k(['get', 'deployment,service,pdb,route,configmap', '-n', NS, '-l', 'app=sample', '-o', 'name']))
          .trim()
          .split('\n')
          .sort(),
      ).toEqual([
        'configmap/sample-env',
        'deployment.apps/sample',
        'poddisruptionbudget.policy/sample',
        'route.route.openshift.io/sample-route',
        'service/sample-policy-engine',
      ]);
      // The watches started (a watch refused would say so within a moment).
      await new Promise((r) => setTimeout(r, 2000));
      expect(operator.output()).not.toMatch(/forbidden|watch failed|pass failed/i);
    },
  );
});
