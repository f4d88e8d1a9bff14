// A Deployment's pod run as a local process, for an API server that runs no pods: the container's
// arguments, its environment (env and envFrom, from the ConfigMaps and Secrets the API server holds) and
// its mounts (each ConfigMap or Secret volume written out as the kubelet would, each emptyDir a fresh
// folder) are taken from the cluster as they are, and the cincy command of the image's entry point is run
// with them. Paths under a mount are moved to the local folder; the pod's network is the test's loopback.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { kubectl } from './kubectl.js';
import { serveCli, type Served } from './cli.js';

interface KeyToPath {
  key: string;
  path: string;
}
interface Volume {
  name: string;
  configMap?: { name: string; items?: KeyToPath[] };
  secret?: { secretName: string; items?: KeyToPath[] };
  emptyDir?: object;
}
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
export interface DeploymentJson {
  metadata: { uid: string; generation: number };
  spec: {
    template: {
      metadata: { annotations?: Record<string, string> };
      spec: { containers: Container[]; volumes?: Volume[] };
    };
  };
}

export interface PodProcess extends Served {
  /** The environment the process was given (after mount paths were moved). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

async function getJson<T>(kubeconfig: string, args: string[]): Promise<T> {
  const r = await kubectl(kubeconfig, ['get', ...args, '-o', 'json']);
  if (r.code !== 0) throw new Error(`kubectl get ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** The data of a ConfigMap, or a Secret's decoded. */
async function dataOf(kubeconfig: string, namespace: string, kind: 'configmap' | 'secret', name: string) {
  const o = await getJson<{ data?: Record<string, string> }>(kubeconfig, [kind, name, '-n', namespace]);
  const data = o.data ?? {};
  return kind === 'secret'
    ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]))
    : data;
}

export async function deploymentOf(kubeconfig: string, namespace: string, name: string): Promise<DeploymentJson> {
  return getJson<DeploymentJson>(kubeconfig, ['deployment', name, '-n', namespace]);
}

/** Runs the one container of the Deployment `name` (whose image's entry point is `cincy`) as `cincy` here. */
export async function runPodLocally(
  kubeconfig: string,
  namespace: string,
  name: string,
  cleanup: { add(f: () => unknown): void; dir(): string },
): Promise<PodProcess> {
  const deployment = await deploymentOf(kubeconfig, namespace, name);
  const pod = deployment.spec.template.spec;
  if (pod.containers.length !== 1) throw new Error(`${name}: ${pod.containers.length} containers, expected one`);
  const container = pod.containers[0]!;
  if (container.command) throw new Error(`${name}: a command replaces the image's entry point: ${container.command}`);
  const [verb, ...args] = container.args ?? [];
  if (verb !== 'serve') throw new Error(`${name}: expected the arguments to start with serve, got ${container.args}`);

  const root = cleanup.dir();
  const moved: Array<[string, string]> = [];
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.volumes?.find((v) => v.name === mount.name);
    if (!volume) throw new Error(`${name}: the mount ${mount.name} has no volume`);
    const local = join(root, mount.mountPath);
    mkdirSync(local, { recursive: true });
    moved.push([mount.mountPath, local]);
    const source = volume.configMap
      ? { data: await dataOf(kubeconfig, namespace, 'configmap', volume.configMap.name), items: volume.configMap.items }
      : volume.secret
        ? { data: await dataOf(kubeconfig, namespace, 'secret', volume.secret.secretName), items: volume.secret.items }
        : undefined;
    if (!source) {
      if (!volume.emptyDir) throw new Error(`${name}: the volume ${volume.name} is of a kind not run here`);
      continue;
    }
    const items = source.items ?? Object.keys(source.data).map((key) => ({ key, path: key }));
    for (const { key, path } of items) {
      if (source.data[key] === undefined) throw new Error(`${name}: the volume ${volume.name} has no key ${key}`);
      mkdirSync(dirname(join(local, path)), { recursive: true });
      writeFileSync(join(local, path), source.data[key]!);
    }
  }
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, await dataOf(kubeconfig, namespace, 'configmap', from.configMapRef.name));
    if (from.secretRef) Object.assign(env, await dataOf(kubeconfig, namespace, 'secret', from.secretRef.name));
  }
  for (const e of container.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  // The longest mount path first: one mount may sit inside another.
  moved.sort((a, b) => b[0].length - a[0].length);
  for (const [k, v] of Object.entries(env)) {
    const hit = moved.find(([path]) => v === path || v.startsWith(`${path}/`));
    if (hit) env[k] = hit[1] + v.slice(hit[0].length);
  }
  env.CINCY_HOST = '127.0.0.1';
  const served = await serveCli(args, cleanup, env);
  return {
    ...served,
    env,
    stop: () =>
      new Promise<void>((resolve) => {
        served.child.removeAllListeners('exit');
        served.child.once('exit', () => resolve());
        served.child.kill('SIGTERM');
      }),
  };
}
