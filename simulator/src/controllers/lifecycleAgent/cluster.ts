// What the lifecycle agent reads and writes through the Kubernetes API: the ImageBasedUpgrade `upgrade`, the
// host data (../singleNodeHost.ts), the ConfigMaps its spec names, OADP's Backups and Restores,
// and the health of the cluster (node, cluster operators). Every write names the resourceVersion it was read
// at, so a write over a change made meanwhile (by the host, by kubectl) fails and the pass is made again.
import { parseAllDocuments } from 'yaml';
import { kubeTime } from 'cincy/clock';
import type { ClusterApi, KubeObject, Resource } from 'cincy/cluster/api';
import { apiMessage, isConflict, unlessNotFound } from 'cincy/cluster/apiError';
import { RESOURCES, type ConfigMap } from 'cincy/cluster/resources';
import { PULL_SECRET_KEY } from '../../payloads/seedImage.js';
import { HOST_CONFIGMAP, hostFromData, hostToData, type HostData } from '../singleNodeHost.js';
import type { ConfigMapRef, ImageBasedUpgrade } from './status.js';

/** The one ImageBasedUpgrade of a cluster. */
export const LCA = { name: 'upgrade' };
const VELERO: Record<'Backup' | 'Restore', Resource> = {
  Backup: { group: 'velero.io', version: 'v1', resource: 'backups', namespaced: true },
  Restore: { group: 'velero.io', version: 'v1', resource: 'restores', namespaced: true },
};

export interface OadpObject {
  apiVersion?: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: unknown;
  status?: { phase?: string; validationErrors?: string[] };
}

type Secret = KubeObject & { data?: Record<string, string> };

/** A ConfigMap missing, or a manifest of it that is not a Kubernetes object: the error names the ConfigMap and the key. */
export class ManifestError extends Error {
  constructor(
    message: string,
    /** The ConfigMap does not exist. */
    readonly missing = false,
  ) {
    super(message);
  }
}

export class IbuCluster {
  constructor(private readonly api: ClusterApi) {}

  /** Whether the cluster serves the ImageBasedUpgrade API (the Lifecycle Agent's CRD is installed). */
  async served(): Promise<boolean> {
    return (await unlessNotFound(this.api.list(RESOURCES.imageBasedUpgrades))) !== undefined;
  }

  ibu(): Promise<ImageBasedUpgrade | undefined> {
    return unlessNotFound(this.api.get<ImageBasedUpgrade>(RESOURCES.imageBasedUpgrades, LCA));
  }

  /** Creates `upgrade` at Idle, as the Lifecycle Agent does when it finds none; one made meanwhile is fine. */
  async createIbu(): Promise<void> {
    const body = {
      apiVersion: 'lca.openshift.io/v1',
      kind: 'ImageBasedUpgrade',
      metadata: { name: LCA.name },
      spec: { stage: 'Idle' },
    };
    try {
      await this.api.create(RESOURCES.imageBasedUpgrades, body);
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }

  writeStatus(ibu: ImageBasedUpgrade): Promise<ImageBasedUpgrade> {
    return this.api.replaceStatus(RESOURCES.imageBasedUpgrades, ibu);
  }

  /** Writes the object itself (its annotations); the spec is the user's. */
  writeIbu(ibu: ImageBasedUpgrade): Promise<ImageBasedUpgrade> {
    return this.api.replace(RESOURCES.imageBasedUpgrades, ibu);
  }

  async host(): Promise<{ host: HostData; resourceVersion: string }> {
    const cm = await this.api.get<ConfigMap>(RESOURCES.configMaps, HOST_CONFIGMAP);
    return { host: hostFromData(cm.data), resourceVersion: cm.metadata.resourceVersion! };
  }

  /** Writes the host data read at `resourceVersion`; returns the new resourceVersion. */
  async writeHost(host: HostData, resourceVersion: string): Promise<string> {
    const cm = await this.api.replace<ConfigMap>(RESOURCES.configMaps, {
      metadata: { ...HOST_CONFIGMAP, resourceVersion },
      data: hostToData(host),
    });
    return cm.metadata.resourceVersion!;
  }

  /** The Kubernetes objects of a ConfigMap's values (YAML, several documents each); an Error naming what is wrong. */
  async manifests(ref: ConfigMapRef, field: string): Promise<OadpObject[]> {
    const cm = await unlessNotFound(this.api.get<ConfigMap>(RESOURCES.configMaps, ref));
    if (!cm) throw new ManifestError(`${field}: ConfigMap ${ref.namespace}/${ref.name} not found`, true);
    const out: OadpObject[] = [];
    for (const [key, text] of Object.entries(cm.data ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
      for (const doc of parseAllDocuments(text)) {
        if (doc.errors.length)
          throw new ManifestError(
            `${field}: ConfigMap ${ref.namespace}/${ref.name} key ${key}: ${doc.errors[0]!.message}`,
          );
        const o = doc.toJS() as OadpObject | null;
        if (o === null) continue;
        if (
          typeof o !== 'object' ||
          typeof o.kind !== 'string' ||
          typeof o.metadata?.name !== 'string' ||
          typeof o.apiVersion !== 'string'
        )
          throw new ManifestError(
            `${field}: ConfigMap ${ref.namespace}/${ref.name} key ${key}: not a Kubernetes object (apiVersion, kind and metadata.name are required)`,
          );
        out.push(o);
      }
    }
    return out;
  }

  /**
   * Why the pull secret `name` of openshift-lifecycle-agent cannot be used, in the words of the real agent's
   * GetSecretData; undefined when it has the config.json key.
   */
  async pullSecretProblem(name: string): Promise<string | undefined> {
    const namespace = HOST_CONFIGMAP.namespace;
    const secret = await unlessNotFound(this.api.get<Secret>(RESOURCES.secrets, { name, namespace }));
    if (!secret) return `secrets "${name}" not found`;
    if (secret.data?.[PULL_SECRET_KEY] === undefined)
      return `did not find key ${PULL_SECRET_KEY} in Secret ${name}/${namespace}`;
    return undefined;
  }

  oadp(kind: 'Backup' | 'Restore', namespace: string, name: string): Promise<OadpObject | undefined> {
    return unlessNotFound(this.api.get<OadpObject>(VELERO[kind], { namespace, name }));
  }

  /** Creates a Backup or Restore; one that exists already (made before a restart) is left as it is. */
  async createOadp(o: OadpObject): Promise<void> {
    try {
      const metadata = { ...o.metadata, namespace: o.metadata.namespace ?? 'openshift-adp' };
      await this.api.create(VELERO[o.kind as 'Backup' | 'Restore'], {
        ...o,
        metadata,
        apiVersion: 'velero.io/v1',
        status: undefined,
      });
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }

  async deleteOadp(kind: 'Backup' | 'Restore', namespace: string, name: string): Promise<void> {
    await unlessNotFound(this.api.delete(VELERO[kind], { namespace, name }));
  }

  /** Creates an extra manifest's object; one that exists is left as it is. An Error says why it cannot be made. */
  async apply(o: OadpObject): Promise<void> {
    try {
      await this.api.create(await this.api.resourceFor(o.apiVersion ?? '', o.kind), o);
    } catch (err) {
      if (isConflict(err)) return;
      throw new Error(
        `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}: ${apiMessage(err)}`,
      );
    }
  }

  /**
   * Records an Event about the ImageBasedUpgrade (in `default`, where events of cluster-scoped objects go), as
   * the Lifecycle Agent's recorder does before a reboot. Best effort: a failure to record is only logged.
   */
  async event(ibu: ImageBasedUpgrade, reason: string, message: string, now: number): Promise<void> {
    // Never after the wall clock (kubectl ages events against it), though the simulated one may run ahead.
    const time = Math.min(now, Date.now());
    await this.api.create(RESOURCES.events, {
      metadata: { generateName: `${ibu.metadata.name}.`, namespace: 'default' },
      involvedObject: {
        apiVersion: ibu.apiVersion,
        kind: ibu.kind,
        name: ibu.metadata.name,
        uid: ibu.metadata.uid as string | undefined,
      },
      reason,
      message,
      type: 'Normal',
      count: 1,
      firstTimestamp: kubeTime(time),
      lastTimestamp: kubeTime(time),
      source: { component: 'ImageBasedUpgrade' },
      reportingComponent: 'ImageBasedUpgrade',
      reportingInstance: '',
    });
  }

  /** What keeps the cluster from being healthy (the node not Ready, an operator unavailable or degraded); empty when healthy. */
  async unhealthy(node: string): Promise<string[]> {
    const out: string[] = [];
    const n = await unlessNotFound(
      this.api.get<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>(
        RESOURCES.nodes,
        { name: node },
      ),
    );
    const ready = n?.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status !== 'True') out.push(`node ${node} is not ready`);
    const cos = await this.api.list<{
      metadata: { name: string };
      status?: { conditions?: Array<{ type: string; status: string }> };
    }>(RESOURCES.clusterOperators);
    for (const co of cos.items) {
      const c = (t: string): string | undefined => co.status?.conditions?.find((x) => x.type === t)?.status;
      if (c('Available') !== 'True') out.push(`clusteroperator ${co.metadata.name} is not available`);
      else if (c('Degraded') === 'True') out.push(`clusteroperator ${co.metadata.name} is degraded`);
    }
    return out;
  }

  /** The version the cluster runs: the ClusterVersion's desired version. */
  async clusterVersion(): Promise<{ version: string; clusterID?: string }> {
    const cv = await this.api.get<{ spec?: { clusterID?: string }; status?: { desired?: { version?: string } } }>(
      RESOURCES.clusterVersions,
      { name: 'version' },
    );
    return { version: cv.status?.desired?.version ?? '', clusterID: cv.spec?.clusterID };
  }
}
