// What the operator reads from the cluster for every UpdateService: the cluster's pull secret, the registry
// CA an administrator names in image.config.openshift.io (where the cincinnati-operator looks for it), and
// whether routes are served. A CA that is missing or unusable is said in the RegistryCACertFound condition;
// the service is still made, and reads the registry with the system's CAs.
import { X509Certificate } from 'node:crypto';
import type { ClusterApi } from '../cluster/api.js';
import { isNotFound, unlessNotFound } from '../cluster/apiError.js';
import { RESOURCES, type ConfigMap } from '../cluster/resources.js';
import type { ClusterInputs } from './operands.js';
import { REGISTRY_CA_KEY } from './operands.js';
import type { UpdateServiceCondition } from './updateService.js';

/** Where OpenShift keeps the cluster-wide configuration the operator reads. */
export const OPENSHIFT_CONFIG = 'openshift-config';
export const PULL_SECRET = 'pull-secret';
const IMAGE_CONFIG = 'cluster';

export interface ReadInputs extends ClusterInputs {
  /** The RegistryCACertFound condition (without its times). */
  caCondition: Pick<UpdateServiceCondition, 'type' | 'status' | 'reason' | 'message'>;
  /** What the service does without, for the ReconcileCompleted message (a pull secret not found). */
  notes: string[];
}

export async function readClusterInputs(api: ClusterApi): Promise<ReadInputs> {
  const secret = await unlessNotFound(
    api.get<{ data?: Record<string, string> }>(RESOURCES.secrets, { name: PULL_SECRET, namespace: OPENSHIFT_CONFIG }),
  );
  const pullSecret = secret?.data?.['.dockerconfigjson'];
  const notes = pullSecret
    ? []
    : [
        `no .dockerconfigjson in the Secret ${OPENSHIFT_CONFIG}/${PULL_SECRET}: the registry is read without credentials`,
      ];
  const routes = await served(api, 'route.openshift.io/v1', 'Route');
  const ca = await readRegistryCa(api);
  return {
    ...(pullSecret && { pullSecret }),
    ...(ca.pem && { registryCa: ca.pem }),
    routes,
    caCondition: { type: 'RegistryCACertFound', ...ca.condition },
    notes,
  };
}

async function served(api: ClusterApi, apiVersion: string, kind: string): Promise<boolean> {
  try {
    await api.resourceFor(apiVersion, kind);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

interface CaAnswer {
  pem?: string;
  condition: { status: 'True' | 'False'; reason: string; message: string };
}

async function readRegistryCa(api: ClusterApi): Promise<CaAnswer> {
  const missing = (reason: string, message: string): CaAnswer => ({ condition: { status: 'False', reason, message } });
  const image = (await served(api, 'config.openshift.io/v1', 'Image'))
    ? await unlessNotFound(
        api.get<{ spec?: { additionalTrustedCA?: { name?: string } } }>(RESOURCES.imageConfigs, { name: IMAGE_CONFIG }),
      )
    : undefined;
  if (!image)
    return missing(
      'FindAdditionalTrustedCAFailed',
      `image.config.openshift.io ${IMAGE_CONFIG} not found: no registry CA`,
    );
  const name = image.spec?.additionalTrustedCA?.name;
  if (!name)
    return missing(
      'NotConfigured',
      `image.config.openshift.io ${IMAGE_CONFIG} names no spec.additionalTrustedCA: the registry is checked against the system's CAs`,
    );
  const where = `ConfigMap ${OPENSHIFT_CONFIG}/${name}`;
  const cm = await unlessNotFound(api.get<ConfigMap>(RESOURCES.configMaps, { name, namespace: OPENSHIFT_CONFIG }));
  if (!cm)
    return missing('FindAdditionalTrustedCAFailed', `the ${where} that spec.additionalTrustedCA names does not exist`);
  const pem = cm.data?.[REGISTRY_CA_KEY];
  if (pem === undefined)
    return missing(
      'EnsureAdditionalTrustedCAFailed',
      `the ${where} has no key '${REGISTRY_CA_KEY}' holding the registry CA`,
    );
  const problem = caBundleProblem(pem);
  if (problem) return missing('InvalidCACert', `the ${where}, key '${REGISTRY_CA_KEY}': ${problem}`);
  return { pem, condition: { status: 'True', reason: 'CACertFound', message: `the registry CA of the ${where}` } };
}

/** Why `pem` is no bundle of certificates, or undefined when each block is one. */
export function caBundleProblem(pem: string): string | undefined {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) return 'no PEM certificate (-----BEGIN CERTIFICATE-----)';
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (err) {
      return `certificate ${i + 1} cannot be read: ${(err as Error).message}`;
    }
  }
  return undefined;
}
