// The update executor: what the cluster-version-operator does once spec.desiredUpdate asks for a
// release (update-workflow.md §A). It resolves and verifies the release, has a Job extract the
// payload, validates it, checks the preconditions, records the release in status, then applies the
// manifests runlevel by runlevel and waits for each runlevel's ClusterOperators. Progress lives in a
// ConfigMap, never only in memory: a new operator (after the CVO Deployment is replaced, or after a
// kill) resumes at the first runlevel not yet done.
import { createHash } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { kubeTime, type Clock } from '../../clock.js';
import { loadPayload, type Manifest, type Payload } from '../../payload/load.js';
import type { PayloadStore } from '../../payload/store.js';
import { runStage, taskGraph, type Stage } from '../../payload/taskGraph.js';
import type { Release } from '../cincinnati.js';
import { ClusterVersionClient, removeCondition, setCondition, type ClusterVersion, type ClusterVersionStatus } from '../clusterVersion.js';
import type { Condition } from '../status.js';
import { describePrecondition, preconditions, resolveDesired, upgradeableFrom, type Target } from './accept.js';
import { gateOperators, working, type ExpectedOperator } from './gate.js';
import type { ReleaseVerifier } from './verify.js';

export type SyncResult = 'idle' | 'waiting' | 'handover' | 'completed' | 'superseded';

export const PROGRESS = { namespace: 'openshift-cluster-version', name: 'cincy-update-progress' };
const CVO_DEPLOYMENT = { namespace: 'openshift-cluster-version', name: 'cluster-version-operator' };

/** Simulated-time intervals of the CVO. */
export const TIMING = {
  /** A blocked acceptance or a failed runlevel is tried again after this. */
  retry: 60_000,
  /** How often the ClusterOperators of a runlevel are checked while waiting. */
  gatePoll: 10_000,
  /** The payload Job must finish within this. */
  jobTimeout: 4 * 60_000,
  /** Retry of one manifest: 10 s × 1.3, 3 steps, at most 15 s. */
  backoff: { first: 10_000, factor: 1.3, steps: 3, cap: 15_000 },
};

interface Progress {
  version: string;
  image: string;
  stagesDone: number;
  done: number;
}

export interface OperatorOptions {
  kc: k8s.KubeConfig;
  clock: Clock;
  payloads: PayloadStore;
  verifier: ReleaseVerifier;
  workers: number;
  log: Logger;
  stopped?: () => boolean;
}

type KubeDoc = k8s.KubernetesObject & { metadata: { name: string; namespace?: string }; status?: unknown; [key: string]: unknown };

export class ClusterVersionOperator {
  private readonly cv: ClusterVersionClient;
  private readonly objects: k8s.KubernetesObjectApi;
  private readonly core: k8s.CoreV1Api;
  private readonly custom: k8s.CustomObjectsApi;
  private readonly clock: Clock;

  constructor(private readonly o: OperatorOptions) {
    this.cv = new ClusterVersionClient(o.kc);
    this.objects = k8s.KubernetesObjectApi.makeApiClient(o.kc);
    this.core = o.kc.makeApiClient(k8s.CoreV1Api);
    this.custom = o.kc.makeApiClient(k8s.CustomObjectsApi);
    this.clock = o.clock;
  }

  private at(): string {
    return kubeTime(this.clock.now());
  }

  /** Waits `ms` of simulated time, and at least a little real time, so a fast clock does not spin. */
  private async pause(ms: number): Promise<void> {
    await Promise.all([this.clock.sleep(ms), new Promise((r) => setTimeout(r, 50))]);
  }

  /** One pass: accept a new desired update, continue the one under way, or do nothing. */
  async sync(): Promise<SyncResult> {
    const cv = await this.cv.get();
    const upgradeable = upgradeableFrom(await this.operators(), this.at());
    await this.cv.writeStatus((s) => ({ ...s, conditions: setCondition(s.conditions, upgradeable) }));
    this.arch = cv.status.desired?.architecture === 'Multi' ? 'multi' : await this.nodeArch();
    const resolution = resolveDesired(cv);
    if (resolution.kind === 'invalid') {
      await this.cv.writeStatus((s) => ({
        ...s,
        conditions: setCondition(s.conditions, { type: 'Invalid', status: 'True', lastTransitionTime: this.at(), reason: 'InvalidClusterVersion', message: `The cluster version is invalid: ${resolution.message}` }),
      }));
      return 'waiting';
    }
    await this.cv.writeStatus((s) => ({ ...s, conditions: removeCondition(s.conditions, 'Invalid') }));
    if (resolution.kind === 'target') return this.accept(cv, resolution.target);
    const h = cv.status.history?.[0];
    const desired = cv.status.desired;
    if (desired && h?.state === 'Partial' && h.version === desired.version && h.image === desired.image) return this.apply(desired);
    return 'idle';
  }

  private async operators(): Promise<Array<{ metadata: { name: string }; status?: { conditions?: Condition[]; versions?: Array<{ name: string; version: string }> } }>> {
    const list = (await this.custom.listClusterCustomObject({ group: 'config.openshift.io', version: 'v1', plural: 'clusteroperators' })) as { items: Array<{ metadata: { name: string } }> };
    return list.items;
  }

  /** Steps 1 to 6: from a resolved target to a release recorded in status, or a ReleaseAccepted=False saying why not. */
  private async accept(cv: ClusterVersion, target: Target): Promise<SyncResult> {
    const { release, force } = target;
    const image = release.image;
    const said = (version: string): string => `version="${version}" image="${image}"`;
    const refuse = async (reason: string, message: string): Promise<SyncResult> => {
      this.o.log.warn({ reason, message }, 'release not accepted');
      await this.cv.writeStatus((s) => ({ ...s, conditions: setCondition(s.conditions, { type: 'ReleaseAccepted', status: 'False', lastTransitionTime: this.at(), reason, message }) }));
      await this.pause(TIMING.retry);
      return 'waiting';
    };
    const risks: string[] = [];
    const verification = await this.o.verifier.verify(image, (cv.spec.signatureStores ?? []).map((s) => s.url));
    if (!verification.verified) {
      if (!force) return refuse('RetrievePayload', `Retrieving payload failed ${said(release.version)} failure=${verification.message}`);
      risks.push(`Target release ${said(release.version)} cannot be verified, but continuing anyway because the update was forced: ${verification.message}`);
    }
    const job = await this.extract(release);
    if (job) return refuse('RetrievePayload', `Retrieving payload failed ${said(release.version)} failure=Unable to download and prepare the update: ${job}`);
    let payload: Payload;
    try {
      payload = loadPayload(this.o.payloads.pathOf(image));
    } catch (err) {
      return refuse('LoadPayload', `Loading payload failed ${said(release.version)} failure=${(err as Error).message}`);
    }
    if (release.version && payload.version !== release.version) {
      return refuse('VerifyPayloadVersion', `Verifying payload failed ${said(release.version)} failure=release image version ${payload.version} does not match the expected upstream version ${release.version}`);
    }
    const current = cv.status.desired?.version ?? payload.version;
    const upgradeable = upgradeableFrom(await this.operators(), this.at());
    const failed = preconditions(current, target, payload.version, upgradeable);
    const blocking = failed.filter((p) => p.blocking);
    const summary = blocking.length === 1 ? describePrecondition(blocking[0]!) : `Multiple precondition checks failed:\n* ${blocking.map(describePrecondition).join('\n* ')}`;
    if (blocking.length && !force) return refuse('PreconditionChecks', `Preconditions failed for payload loaded ${said(payload.version)}: ${summary}`);
    if (blocking.length) risks.push(`Forced through blocking failures: ${summary}`);
    risks.push(...failed.filter((p) => !p.blocking).map(describePrecondition));

    const url = release.url ?? (payload.metadata.metadata?.url as string | undefined);
    const desired: Release = { version: payload.version, image, ...(url ? { url } : {}), channels: release.channels ?? [], ...(release.architecture ? { architecture: release.architecture } : {}) };
    const at = this.at();
    const total = countDocs(payload.manifests);
    await this.writeProgress({ version: desired.version, image, stagesDone: 0, done: 0 });
    await this.cv.writeStatus((s, fresh) => {
      const history = (s.history ?? []).map((h, i) => (i === 0 && h.completionTime === null ? { ...h, completionTime: at } : h));
      let conditions = setCondition(s.conditions, { type: 'ReleaseAccepted', status: 'True', lastTransitionTime: at, reason: 'PayloadLoaded', message: `Payload loaded ${said(payload.version)} architecture="${this.arch}"` });
      conditions = setCondition(conditions, { type: 'Progressing', status: 'True', lastTransitionTime: at, reason: '', message: working(desired.version, 0, total) });
      conditions = setCondition(conditions, { type: 'Failing', status: 'False', lastTransitionTime: at, reason: '', message: '' });
      return {
        ...s,
        desired,
        observedGeneration: fresh.metadata.generation ?? s.observedGeneration,
        history: [
          { state: 'Partial' as const, startedTime: at, completionTime: null, version: desired.version, image, verified: verification.verified, ...(risks.length ? { acceptedRisks: risks.join('\n') } : {}) },
          ...history,
        ].slice(0, 100),
        conditions,
      };
    });
    this.o.log.info({ version: desired.version, image, verified: verification.verified, acceptedRisks: risks, manifests: total }, 'release accepted');
    return this.apply(desired, payload);
  }

  private arch = 'amd64';

  private async nodeArch(): Promise<string> {
    const nodes = await this.core.listNode({ labelSelector: 'node-role.kubernetes.io/master' }).catch(() => undefined);
    return nodes?.items[0]?.status?.nodeInfo?.architecture ?? nodes?.items[0]?.metadata?.labels?.['kubernetes.io/arch'] ?? 'amd64';
  }

  /** Step 3: the Job version-<version>-<hash> that extracts the payload; an error message, or undefined when it succeeded. */
  private async extract(release: Release): Promise<string | undefined> {
    const hash = createHash('sha256').update(release.image).digest('base64url').replace(/[^a-z0-9]/g, '').slice(0, 5) || 'x';
    const name = `version-${release.version || 'image'}-${hash}`.toLowerCase().replace(/[^a-z0-9.-]/g, '-').slice(0, 63);
    const header = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'openshift-cluster-version' } };
    let job = await this.read(header);
    if (job && jobState(job).failed) {
      await this.objects.delete(header);
      job = undefined;
    }
    if (!job) {
      await this.objects.create({
        ...header,
        spec: {
          backoffLimit: 0,
          activeDeadlineSeconds: TIMING.jobTimeout / 1000,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'payload', image: release.image, command: ['/bin/sh', '-c', `mkdir -p /etc/cvo/updatepayloads/${name} && cp -r /release-manifests /etc/cvo/updatepayloads/${name}/`] }],
            },
          },
        },
      } as k8s.KubernetesObject);
    }
    return this.jobOutcome(header);
  }

  /** Waits for a Job to finish: undefined when it completed, else why it did not. */
  private async jobOutcome(header: KubeDoc | { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): Promise<string | undefined> {
    const deadline = this.clock.now() + TIMING.jobTimeout;
    while (this.clock.now() < deadline) {
      const state = jobState((await this.read(header)) ?? {});
      if (state.complete) return undefined;
      if (state.failed) return state.message;
      await this.pause(5_000);
    }
    return `timed out waiting for the job ${header.metadata.name} to complete`;
  }

  private async read(header: KubeDoc | { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): Promise<KubeDoc | undefined> {
    try {
      return (await this.objects.read(header)) as KubeDoc;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }

  /** Steps 7 to 11: the runlevels not yet done, each applied then gated, then the history entry completed. */
  private async apply(desired: Release, loaded?: Payload): Promise<SyncResult> {
    let payload = loaded;
    if (!payload) {
      try {
        payload = loadPayload(this.o.payloads.pathOf(desired.image));
      } catch {
        // The shared volume lost it (a new pod): extract again.
        const error = await this.extract(desired);
        if (error) return this.failing('RetrievePayload', `Unable to download and prepare the update: ${error}`, desired.version);
        payload = loadPayload(this.o.payloads.pathOf(desired.image));
      }
    }
    const stages = taskGraph(payload.manifests);
    const total = countDocs(payload.manifests);
    const saved = await this.readProgress();
    const progress: Progress = saved && saved.version === desired.version && saved.image === desired.image ? saved : { version: desired.version, image: desired.image, stagesDone: 0, done: 0 };
    if (progress.stagesDone > 0) this.o.log.info({ version: desired.version, stagesDone: progress.stagesDone, stages: stages.length, done: progress.done }, 'resuming the update where it was');
    let done = progress.done;
    for (let i = progress.stagesDone; i < stages.length; i++) {
      if (this.o.stopped?.()) return 'waiting';
      if (await this.superseded(desired)) return 'superseded';
      const stage = stages[i]!;
      let handover = false;
      try {
        await runStage(stage, this.o.workers, async (task) => {
          for (const m of task.manifests) {
            for (const doc of m.docs as KubeDoc[]) {
              if (await this.applyWithRetry(doc, m, done + 1, total)) handover = true;
              done += 1;
            }
          }
          await this.report(desired.version, done, total);
        });
      } catch (err) {
        const errors = err instanceof AggregateError ? err.errors : [err];
        return this.failing('UpdatePayloadFailed', errors.map((e: Error) => e.message).join('; '), desired.version);
      }
      if ((await this.gate(stage, desired, done, total)) === 'superseded') return 'superseded';
      await this.writeProgress({ ...progress, stagesDone: i + 1, done });
      this.o.log.info({ runlevel: stage.runlevel, stage: i + 1, stages: stages.length, done, total }, 'runlevel done');
      if (handover && i + 1 < stages.length) {
        this.o.log.info({ stagesDone: i + 1 }, 'the cluster-version-operator Deployment changed: handing over to the new operator');
        return 'handover';
      }
    }
    await this.complete(desired.version, total);
    return 'completed';
  }

  /** Applies one document, retrying with backoff; true when it replaced the CVO's own Deployment with another image. */
  private async applyWithRetry(doc: KubeDoc, m: Manifest, index: number, total: number): Promise<boolean> {
    const { first, factor, steps, cap } = TIMING.backoff;
    for (let attempt = 0, wait = first; ; attempt++, wait = Math.min(cap, wait * factor)) {
      try {
        return await this.applyOne(doc, m);
      } catch (err) {
        const what = `${doc.kind} "${doc.metadata.namespace ? `${doc.metadata.namespace}/` : ''}${doc.metadata.name}"`;
        const message = `Could not update ${what} (${index} of ${total}) from ${m.file}: ${apiMessage(err)}`;
        if (attempt >= steps) throw new Error(message);
        this.o.log.warn({ file: m.file, attempt: attempt + 1, err: message }, 'apply failed; retrying');
        await this.pause(wait);
      }
    }
  }

  private async applyOne(doc: KubeDoc, m: Manifest): Promise<boolean> {
    const existing = await this.read(doc);
    // The status of an object belongs to its controller, never to the manifest.
    const body: KubeDoc = { ...doc };
    delete body.status;
    if (!existing) {
      await this.objects.create(body as k8s.KubernetesObject);
    } else if (doc.kind !== 'ClusterOperator') {
      // A ClusterOperator is created if missing; after that its operator owns it.
      await this.objects.replace({ ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata.resourceVersion } } as k8s.KubernetesObject);
    }
    // A Job in the payload is work the next manifests depend on: it must finish first.
    const failed = doc.kind === 'Job' ? await this.jobOutcome(doc) : undefined;
    if (failed) throw new Error(`job ${doc.metadata.namespace}/${doc.metadata.name}: ${failed}`);
    this.o.log.debug({ file: m.file, runlevel: m.runlevel, component: m.component, kind: doc.kind, name: doc.metadata.name }, 'applied');
    const isCvo = doc.kind === 'Deployment' && doc.metadata.namespace === CVO_DEPLOYMENT.namespace && doc.metadata.name === CVO_DEPLOYMENT.name;
    return isCvo && firstImage(existing) !== firstImage(doc);
  }

  /** Step 9: every ClusterOperator whose manifest is in the stage is Available, not Degraded, and at the target versions. */
  private async gate(stage: Stage, desired: Release, done: number, total: number): Promise<'ok' | 'superseded'> {
    const expected: ExpectedOperator[] = stage.tasks.flatMap((t) =>
      t.manifests.flatMap((m) =>
        (m.docs as KubeDoc[])
          .filter((d) => d.kind === 'ClusterOperator')
          .map((d) => ({
            name: d.metadata.name,
            versions: ((d.status as { versions?: Array<{ name: string; version: string }> } | undefined)?.versions ?? []).map((v) => ({ name: v.name, version: v.version === '0.0.1-snapshot' ? desired.version : v.version })),
          })),
      ),
    );
    if (expected.length === 0) return 'ok';
    const started = this.clock.now();
    for (;;) {
      const verdict = gateOperators(expected, await this.operators(), this.clock.now() - started, desired.version, done, total);
      await this.cv.writeStatus((s) => withConditions(s, this.at(), verdict.progressing, verdict.failing));
      if (verdict.done) return 'ok';
      if (this.o.stopped?.()) return 'ok';
      await this.pause(TIMING.gatePoll);
      if (await this.superseded(desired)) return 'superseded';
    }
  }

  private async report(version: string, done: number, total: number): Promise<void> {
    await this.cv.writeStatus((s) => withConditions(s, this.at(), { status: 'True', reason: '', message: working(version, done, total) }, undefined));
  }

  private async failing(reason: string, message: string, version: string): Promise<SyncResult> {
    this.o.log.error({ reason, message }, 'update failing');
    await this.cv.writeStatus((s) => withConditions(s, this.at(), { status: 'True', reason, message: `Unable to apply ${version}: ${message}` }, { status: 'True', reason, message }));
    await this.pause(TIMING.retry);
    return 'waiting';
  }

  /** Step 11: the control plane is done; the nodes may still be updating. */
  private async complete(version: string, total: number): Promise<void> {
    const at = this.at();
    await this.cv.writeStatus((s) => {
      const next = withConditions(s, at, { status: 'False', reason: '', message: `Cluster version is ${version}` }, { status: 'False', reason: '', message: '' });
      next.conditions = setCondition(next.conditions, { type: 'Available', status: 'True', lastTransitionTime: at, reason: '', message: `Done applying ${version}` });
      next.history = (s.history ?? []).map((h, i) => (i === 0 && h.version === version ? { ...h, state: 'Completed' as const, completionTime: at } : h));
      return next;
    });
    try {
      await this.core.deleteNamespacedConfigMap({ ...PROGRESS });
    } catch {
      // already gone
    }
    this.o.log.info({ version, manifests: total }, 'update completed');
  }

  /** Whether spec.desiredUpdate now asks for something other than the release under way. */
  private async superseded(desired: Release): Promise<boolean> {
    const cv = await this.cv.get();
    const r = resolveDesired(cv);
    return r.kind === 'target' && r.target.release.image !== desired.image;
  }

  private async readProgress(): Promise<Progress | undefined> {
    try {
      const cm = await this.core.readNamespacedConfigMap({ ...PROGRESS });
      const d = cm.data ?? {};
      return { version: d.version ?? '', image: d.image ?? '', stagesDone: Number(d.stagesDone ?? 0), done: Number(d.done ?? 0) };
    } catch {
      return undefined;
    }
  }

  private async writeProgress(p: Progress): Promise<void> {
    const body = { metadata: { name: PROGRESS.name, namespace: PROGRESS.namespace }, data: { version: p.version, image: p.image, stagesDone: String(p.stagesDone), done: String(p.done) } };
    try {
      await this.core.replaceNamespacedConfigMap({ ...PROGRESS, body });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
      await this.core.createNamespacedConfigMap({ namespace: PROGRESS.namespace, body });
    }
  }
}

const countDocs = (manifests: Manifest[]): number => manifests.reduce((n, m) => n + m.docs.length, 0);

type Part = { status: 'True' | 'False'; reason: string; message: string };

/** Progressing and (when given) Failing, keeping their transition times. */
function withConditions(s: ClusterVersionStatus, at: string, progressing: Part, failing: Part | undefined): ClusterVersionStatus {
  let conditions = setCondition(s.conditions, { type: 'Progressing', lastTransitionTime: at, ...progressing });
  if (failing) conditions = setCondition(conditions, { type: 'Failing', lastTransitionTime: at, ...failing });
  return { ...s, conditions };
}

function jobState(job: { status?: unknown }): { complete: boolean; failed: boolean; message: string } {
  const conditions = ((job.status as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];
  const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
  return { complete: conditions.some((c) => c.type === 'Complete' && c.status === 'True'), failed: !!failed, message: failed ? `${failed.reason}: ${failed.message}` : '' };
}

function firstImage(o: unknown): string | undefined {
  return (o as { spec?: { template?: { spec?: { containers?: Array<{ image?: string }> } } } } | undefined)?.spec?.template?.spec?.containers?.[0]?.image;
}

/** The message of a Kubernetes API error (a Status body), or of any other error. */
function apiMessage(err: unknown): string {
  const e = err as { code?: number; body?: unknown; message?: string };
  if (e.code !== undefined) {
    try {
      const body = typeof e.body === 'string' ? (JSON.parse(e.body) as { message?: string }) : (e.body as { message?: string });
      if (body?.message) return `${body.message} (HTTP ${e.code})`;
    } catch {
      // not a Status
    }
    return `HTTP ${e.code}`;
  }
  return e.message ?? String(err);
}

/**
 * The executor's loop. A handover (the CVO Deployment replaced) starts a new operator that knows
 * nothing but what the cluster holds, as a new pod would.
 */
export async function runOperator(make: () => ClusterVersionOperator, o: { clock: Clock; log: Logger; stopped: () => boolean }): Promise<void> {
  let cvo = make();
  while (!o.stopped()) {
    let result: SyncResult;
    try {
      result = await cvo.sync();
    } catch (err) {
      o.log.error({ err }, 'update sync failed; will try again');
      result = 'waiting';
      await Promise.all([o.clock.sleep(TIMING.gatePoll), new Promise((r) => setTimeout(r, 1000))]);
    }
    if (result === 'handover') cvo = make();
    else if (result === 'idle' || result === 'superseded') await Promise.all([o.clock.sleep(5_000), new Promise((r) => setTimeout(r, 200))]);
  }
}
