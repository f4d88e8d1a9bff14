// Step 7 of an update, one manifest at a time: create or replace the object (its status belongs to its
// controller and is never applied), retried with the CVO's backoff before the failure is reported. A Job
// in the payload is waited for; a ClusterOperator is only created, then its operator owns it.
import { canonicalJson } from '../../canonicalJson.js';
import { apiMessage, isConflict, unlessNotFound } from '../../cluster/apiError.js';
import type { Manifest } from '../../payload/load.js';
import type { ApiObject, OperatorContext } from './context.js';
import { waitForJob } from './payloadJob.js';
import { DroppedFieldsError, droppedFields } from '../../cluster/dropped.js';
import { crdSchema, pruneObject } from '../../cluster/structuralSchema.js';
import { TIMING } from './timing.js';

const CLUSTER_VERSION_CRD = 'clusterversions.config.openshift.io';
const CVO_DEPLOYMENT = { namespace: 'openshift-cluster-version', name: 'cluster-version-operator' };

export interface Applied {
  /** The cluster-version-operator's own Deployment now runs another image: the operator must hand over. */
  handover: boolean;
  created: boolean;
}

/** Applies one document, retrying with backoff; the last failure is thrown with the CVO's wording. */
export async function applyWithRetry(
  ctx: OperatorContext,
  doc: ApiObject,
  m: Manifest,
  index: number,
  total: number,
): Promise<Applied> {
  const { first, factor, steps, cap } = TIMING.backoff;
  for (let attempt = 0, wait = first; ; attempt++, wait = Math.min(cap, wait * factor)) {
    try {
      return await applyManifest(ctx, doc, m);
    } catch (err) {
      const ns = doc.metadata.namespace ? `${doc.metadata.namespace}/` : '';
      const message = `Could not update ${String(doc.kind).toLowerCase()} "${ns}${doc.metadata.name}" (${index} of ${total}): ${apiMessage(err)} (${m.file})`;
      if (attempt >= steps) throw new Error(message);
      ctx.log.warn({ file: m.file, attempt: attempt + 1, err: message }, 'apply failed; retrying');
      await ctx.pause(wait);
    }
  }
}

/** Applies one document once. */
export async function applyManifest(ctx: OperatorContext, doc: ApiObject, m: Manifest): Promise<Applied> {
  const existing = await ctx.read(doc);
  const body: ApiObject = { ...doc };
  delete body.status;
  // A Job's template cannot change: the new release's Job replaces the old one, and runs again.
  const recreate =
    existing && doc.kind === 'Job' && canonicalJson(jobTemplate(existing)) !== canonicalJson(jobTemplate(doc));
  const resource = await ctx.resourceOf(doc);
  if (recreate) {
    await ctx.api.delete(resource, existing.metadata);
    await waitGone(ctx, existing);
  }
  let stored: ApiObject | undefined;
  if (!existing || recreate) {
    try {
      stored = await ctx.api.create(resource, body);
    } catch (err) {
      // The operator made its ClusterOperator first: that is as good.
      if (!(doc.kind === 'ClusterOperator' && isConflict(err))) throw err;
    }
  } else if (doc.kind !== 'ClusterOperator') {
    if (doc.kind === 'CustomResourceDefinition') await checkCrdKeepsObjects(ctx, existing, body);
    const metadata = { ...body.metadata, resourceVersion: existing.metadata.resourceVersion };
    stored = await ctx.api.replace(resource, { ...body, metadata });
  }
  if (stored && doc.kind === 'CustomResourceDefinition') await checkStoredCrd(ctx, body, stored);
  const failed = doc.kind === 'Job' ? await waitForJob(ctx, doc) : undefined;
  if (failed) throw new Error(`job ${doc.metadata.namespace}/${doc.metadata.name}: ${String(failed)}`);
  const { kind, metadata } = doc;
  ctx.log.debug({ file: m.file, runlevel: m.runlevel, component: m.component, kind, name: metadata.name }, 'applied');
  const isCvo =
    kind === 'Deployment' && metadata.namespace === CVO_DEPLOYMENT.namespace && metadata.name === CVO_DEPLOYMENT.name;
  return { handover: isCvo && firstImage(existing) !== firstImage(doc), created: !existing };
}

type CrdSpec = {
  group?: string;
  scope?: string;
  names?: { plural?: string };
  versions?: Array<{ name?: string; storage?: boolean; schema?: unknown }>;
};

/** A CRD's schemas by version, as one string: equal strings prune alike. */
const schemasOf = (crd: ApiObject): string =>
  canonicalJson(((crd as { spec?: CrdSpec }).spec?.versions ?? []).map((v) => [v.name, v.schema ?? null]));

/**
 * Before a CRD is replaced: what the objects of its kind would lose under the new schema, which the API server
 * prunes by as soon as it is stored. Any loss stops the update with the objects and fields named, the CRD not
 * applied: an update never wipes a ClusterVersion (or any object) by its schema.
 */
async function checkCrdKeepsObjects(ctx: OperatorContext, existing: ApiObject, next: ApiObject): Promise<void> {
  // The same schemas prune nothing new: no list of its objects (the reconcile pass re-applies every CRD).
  if (schemasOf(existing) === schemasOf(next)) return;
  const spec = (existing as { spec?: CrdSpec }).spec ?? {};
  const version = spec.versions?.find((v) => v.storage)?.name ?? spec.versions?.[0]?.name;
  if (!spec.group || !spec.names?.plural || !version) return;
  const resource = { group: spec.group, version, resource: spec.names.plural, namespaced: spec.scope === 'Namespaced' };
  // A kind not served (yet) has no objects to lose.
  const objects = (await unlessNotFound(ctx.api.list<ApiObject>(resource)))?.items ?? [];
  const losses: string[] = [];
  for (const o of objects) {
    const schema = crdSchema(
      next as { spec?: unknown },
      String(o.apiVersion ?? '')
        .split('/')
        .pop() ?? version,
    );
    if (!schema) continue;
    const content: Record<string, unknown> = { ...o };
    delete content.metadata; // kept whole by the API server
    const lost = droppedFields(content, pruneObject(content, schema));
    if (lost.length)
      losses.push(
        `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name} (${lost.slice(0, 5).join(', ')}${lost.length > 5 ? ', …' : ''})`,
      );
  }
  if (losses.length)
    throw new Error(
      `applying the CustomResourceDefinition ${next.metadata.name} would prune ${losses.length} object(s) of its kind: ${losses.slice(0, 3).join('; ')}${losses.length > 3 ? '; …' : ''}; not applied`,
    );
}

/**
 * A CRD must be stored as the payload has it, every `x-kubernetes-*` key of its schema included: a schema
 * missing fields makes the API server prune them from every object of the kind. After the ClusterVersion's
 * own CRD, the ClusterVersion must still hold what the executor lives by; else the update stops here,
 * rather than write into a pruned object.
 */
async function checkStoredCrd(ctx: OperatorContext, sent: ApiObject, stored: ApiObject): Promise<void> {
  const name = sent.metadata.name;
  const dropped = droppedFields((sent as { spec?: unknown }).spec, (stored as { spec?: unknown }).spec);
  if (dropped.length)
    throw new DroppedFieldsError(
      `the CustomResourceDefinition ${name}`,
      dropped.map((f) => `spec.${f}`),
    );
  if (name !== CLUSTER_VERSION_CRD) return;
  const cv = await ctx.cv.get();
  const lost = [
    ...(cv.spec?.clusterID ? [] : ['spec.clusterID']),
    ...(cv.status?.desired?.image ? [] : ['status.desired']),
    ...(cv.status?.history?.length ? [] : ['status.history']),
  ];
  if (lost.length)
    throw new Error(
      `the ClusterVersion version lost ${lost.join(', ')} once the CustomResourceDefinition ${name} was applied: its schema prunes them; not writing into a pruned object`,
    );
}

async function waitGone(ctx: OperatorContext, o: ApiObject): Promise<void> {
  for (let i = 0; i < 100 && (await ctx.read(o)); i++) await ctx.pause(1_000);
}

const jobTemplate = (o: unknown): unknown => (o as { spec?: { template?: unknown } }).spec?.template;

type WithContainers = { spec?: { template?: { spec?: { containers?: Array<{ image?: string }> } } } };
const firstImage = (o: unknown): string | undefined =>
  (o as WithContainers | undefined)?.spec?.template?.spec?.containers?.[0]?.image;
