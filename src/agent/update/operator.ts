// The update executor: what the cluster-version-operator does once spec.desiredUpdate asks for a
// release (update-workflow.md §A). It resolves and verifies the release, has a Job extract the
// payload, validates it, checks the preconditions, records the release in status, then applies the
// manifests runlevel by runlevel and waits for each runlevel's ClusterOperators. Progress lives in a
// ConfigMap, never only in memory: a new operator (after the CVO Deployment is replaced, or after a
// kill) resumes at the first runlevel not yet done.
import { createHash } from 'node:crypto';
import * as k8s from '@kubernetes/client-node';
import { canonicalJson } from '../../canonicalJson.js';
import type { Logger } from 'pino';
import { kubeTime, pause, type Clock } from '../../clock.js';
import { loadPayload, type Manifest, type Payload } from '../../payload/load.js';
import type { PayloadStore } from '../../payload/store.js';
import { runStage, taskGraph, type Stage } from '../../payload/taskGraph.js';
import type { Release } from '../cincinnati.js';
import { ClusterVersionClient, controlPlaneArch, removeCondition, setCondition, type ClusterVersion, type ClusterVersionStatus } from '../clusterVersion.js';
import type { Condition } from '../status.js';
import { describePrecondition, preconditions, resolveDesired, upgradeableFrom, type Target } from './accept.js';
import { gateOperators, working, type ClusterOperatorObject, type ExpectedOperator } from './gate.js';
import type { ReleaseVerifier } from './verify.js';

export type SyncResult = 'idle' | 'waiting' | 'handover' | 'completed' | 'superseded';
type Acceptance = SyncResult | 'refused';

/** A wait given up because the desired update changed under it. */
const ABANDONED = Symbol('abandoned');

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
  /** Between two passes that re-apply the running release's manifests (objects that drifted or were deleted). */
  reconcile: 30 * 60_000,
};

interface Progress {
  version: string;
  image: string;
  stagesDone: number;
  done: number;
  /** When the wait on the ClusterOperators of stage `stagesDone` began: the 40 minutes survive a restart. */
  waitingSince?: number;
}

export interface OperatorOptions {
  kc: k8s.KubeConfig;
  clock: Clock;
  payloads: PayloadStore;
  verifier: ReleaseVerifier;
  workers: number;
  log: Logger;
  /** Aborted on shutdown: every wait ends at once. */
  signal?: AbortSignal;
}

/** What names an object. */
type ObjectRef = { apiVersion?: string; kind?: string; metadata: { name: string; namespace?: string } };
type KubeDoc = k8s.KubernetesObject & ObjectRef & { status?: unknown; [key: string]: unknown };

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

  private pause(ms: number): Promise<void> {
    return pause(this.clock, ms, this.o.signal);
  }

  private get stopped(): boolean {
    return this.o.signal?.aborted ?? false;
  }

  /** The target whose acceptance was refused last, and until when it is not tried again. */
  private refused: { image: string; until: number } | undefined;

  /**
   * One pass: accept a new desired update, or go on with the one under way. A target that is refused
   * or invalid does not stop the update under way, as the CVO keeps applying its current release.
   */
  async sync(): Promise<SyncResult> {
    const cv = await this.cv.get();
    const upgradeable = upgradeableFrom(await this.operators(), this.at());
    await this.cv.writeStatus((s) => ({ ...s, conditions: setCondition(s.conditions, upgradeable) }));
    const resolution = resolveDesired(cv);
    await this.cv.writeStatus((s) => ({
      ...s,
      conditions:
        resolution.kind === 'invalid'
          ? setCondition(s.conditions, { type: 'Invalid', status: 'True', lastTransitionTime: this.at(), reason: 'InvalidClusterVersion', message: `The cluster version is invalid: ${resolution.message}` })
          : removeCondition(s.conditions, 'Invalid'),
    }));
    if (resolution.kind === 'target' && !this.recentlyRefused(resolution.target.release.image)) {
      const result = await this.accept(cv, resolution.target);
      if (result !== 'refused') return result;
    }
    const h = cv.status.history?.[0];
    const desired = cv.status.desired;
    if (desired && h?.state === 'Partial' && h.version === desired.version && h.image === desired.image) return this.apply(desired);
    if (desired && h?.state === 'Completed' && resolution.kind === 'none' && this.clock.now() >= this.nextReconcile) await this.reconcile(desired);
    return resolution.kind === 'none' ? 'idle' : 'waiting';
  }

  private nextReconcile = 0;

  /**
   * After an update, the CVO keeps the cluster's objects as the release delivers them: every manifest
   * applied again, runlevel by runlevel, without waiting on operators. A release whose payload the
   * store does not hold (the one the cluster was installed with, say) is left alone.
   */
  private async reconcile(desired: Release): Promise<void> {
    this.nextReconcile = this.clock.now() + TIMING.reconcile;
    let payload: Payload;
    try {
      payload = loadPayload(this.o.payloads.pathOf(desired.image));
    } catch {
      return;
    }
    const total = countDocs(payload.manifests);
    let created = 0;
    try {
      for (const stage of taskGraph(payload.manifests)) {
        // A new desired update goes first; the next pass comes soon enough.
        if (this.stopped || (await this.superseded(desired))) {
          this.nextReconcile = 0;
          return;
        }
        await runStage(stage, this.o.workers, async (task) => {
          for (const m of task.manifests) for (const doc of m.docs as KubeDoc[]) if ((await this.applyOne(doc, m)).created) created += 1;
        });
      }
      this.o.log.info({ version: desired.version, manifests: total, created }, 'release reconciled');
    } catch (err) {
      this.o.log.warn({ err }, 'reconciling the release failed; will try again');
    }
  }

  private recentlyRefused(image: string): boolean {
    return this.refused?.image === image && this.clock.now() < this.refused.until;
  }

  private async operators(): Promise<ClusterOperatorObject[]> {
    const list = (await this.custom.listClusterCustomObject({ group: 'config.openshift.io', version: 'v1', plural: 'clusteroperators' })) as { items: ClusterOperatorObject[] };
    return list.items;
  }

  /** Steps 1 to 6: from a resolved target to a release recorded in status, or a ReleaseAccepted=False saying why not. */
  private async accept(cv: ClusterVersion, target: Target): Promise<Acceptance> {
    const { release, force } = target;
    const image = release.image;
    const said = (version: string): string => `version="${version}" image="${image}"`;
    const refuse = async (reason: string, message: string): Promise<Acceptance> => {
      this.o.log.warn({ reason, message }, 'release not accepted');
      await this.cv.writeStatus((s) => ({ ...s, conditions: setCondition(s.conditions, { type: 'ReleaseAccepted', status: 'False', lastTransitionTime: this.at(), reason, message }) }));
      this.refused = { image, until: this.clock.now() + TIMING.retry };
      return 'refused';
    };
    const risks: string[] = [];
    const verification = await this.o.verifier.verify(image, cv.spec.signatureStores?.map((s) => s.url));
    if (!verification.verified) {
      if (!force) return refuse('RetrievePayload', `Retrieving payload failed ${said(release.version)} failure=${verification.message}`);
      risks.push(`Target release ${said(release.version)} cannot be verified, but continuing anyway because the update was forced: ${verification.message}`);
    }
    const job = await this.extract(release, async () => ((r) => r.kind !== 'target' || r.target.release.image !== image)(resolveDesired(await this.cv.get())));
    if (job === ABANDONED) return 'superseded';
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
    // Fresh after the Job's wait: an operator may have changed its mind meanwhile.
    const upgradeable = upgradeableFrom(await this.operators(), this.at());
    const failed = preconditions(current, target, payload.version, upgradeable);
    const blocking = failed.filter((p) => p.blocking);
    const summary = blocking.length === 1 ? describePrecondition(blocking[0]!) : `Multiple precondition checks failed:\n* ${blocking.map(describePrecondition).join('\n* ')}`;
    if (blocking.length && !force) return refuse('PreconditionChecks', `Preconditions failed for payload loaded ${said(payload.version)}: ${summary}`);
    if (blocking.length) risks.push(`Forced through blocking failures: ${summary}`);
    risks.push(...failed.filter((p) => !p.blocking).map(describePrecondition));

    const url = release.url ?? (payload.metadata.metadata?.url as string | undefined);
    const desired: Release = { version: payload.version, image, ...(url ? { url } : {}), channels: release.channels ?? [], ...(release.architecture ? { architecture: release.architecture } : {}) };
    const arch = cv.status.desired?.architecture === 'Multi' ? 'multi' : await controlPlaneArch(this.core);
    const at = this.at();
    const total = countDocs(payload.manifests);
    await this.writeProgress({ version: desired.version, image, stagesDone: 0, done: 0 });
    await this.cv.writeStatus((s, fresh) => {
      const history = (s.history ?? []).map((h, i) => (i === 0 && h.completionTime === null ? { ...h, completionTime: at } : h));
      let conditions = setCondition(s.conditions, { type: 'ReleaseAccepted', status: 'True', lastTransitionTime: at, reason: 'PayloadLoaded', message: `Payload loaded ${said(payload.version)} architecture="${arch}"` });
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
    this.refused = undefined;
    this.o.log.info({ version: desired.version, image, verified: verification.verified, acceptedRisks: risks, manifests: total }, 'release accepted');
    return this.apply(desired, payload);
  }


  /** Step 3: the Job version-<version>-<hash> that extracts the payload; an error message, or undefined when it succeeded. */
  private async extract(release: Release, abandon?: () => Promise<boolean>): Promise<string | typeof ABANDONED | undefined> {
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
    return this.jobOutcome(header, abandon);
  }

  /** Waits for a Job to finish: undefined when it completed, else why it did not (ABANDONED when `abandon` says so). */
  private async jobOutcome(header: ObjectRef, abandon?: () => Promise<boolean>): Promise<string | typeof ABANDONED | undefined> {
    const deadline = this.clock.now() + TIMING.jobTimeout;
    while (this.clock.now() < deadline && !this.stopped) {
      const state = jobState((await this.read(header)) ?? {});
      if (state.complete) return undefined;
      if (state.failed) return state.message;
      if (await abandon?.()) return ABANDONED;
      await this.pause(5_000);
    }
    return `timed out waiting for the job ${header.metadata.name} to complete`;
  }

  private async read(header: ObjectRef): Promise<KubeDoc | undefined> {
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
        if (error) return this.failing('RetrievePayload', `Unable to download and prepare the update: ${String(error)}`, desired.version);
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
      if (this.stopped) return 'waiting';
      if (await this.superseded(desired)) return 'superseded';
      const stage = stages[i]!;
      const doneBefore = done;
      let handover = false;
      const reporter = new ProgressReporter((n) => this.cv.writeStatus((s) => withConditions(s, this.at(), { status: 'True', reason: '', message: working(desired.version, n, total) }, undefined)), this.o.log);
      try {
        await runStage(stage, this.o.workers, async (task) => {
          for (const m of task.manifests) {
            for (const doc of m.docs as KubeDoc[]) {
              if (await this.applyWithRetry(doc, m, done + 1, total)) handover = true;
              done += 1;
            }
          }
          reporter.report(done);
        });
      } catch (err) {
        await reporter.flush();
        const errors: Error[] = err instanceof AggregateError ? err.errors : [err as Error];
        return errors.length === 1
          ? this.failing('UpdatePayloadFailed', errors[0]!.message, desired.version)
          : this.failing('MultipleErrors', `Multiple errors are preventing progress:\n${errors.map((e) => `* ${e.message}`).join('\n')}`, desired.version);
      }
      await reporter.flush();
      // The runlevel applied: a failure reported by an earlier try is over.
      await this.cv.writeStatus((s) => withConditions(s, this.at(), { status: 'True', reason: '', message: working(desired.version, done, total) }, { status: 'False', reason: '', message: '' }));
      const waitingSince = i === progress.stagesDone && progress.waitingSince !== undefined ? progress.waitingSince : this.clock.now();
      await this.writeProgress({ version: desired.version, image: desired.image, stagesDone: i, done: doneBefore, waitingSince });
      const gate = await this.gate(stage, desired, done, total, waitingSince);
      if (gate !== 'ok') return gate;
      await this.writeProgress({ version: desired.version, image: desired.image, stagesDone: i + 1, done });
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
        return (await this.applyOne(doc, m)).handover;
      } catch (err) {
        const what = `${String(doc.kind).toLowerCase()} "${doc.metadata.namespace ? `${doc.metadata.namespace}/` : ''}${doc.metadata.name}"`;
        const message = `Could not update ${what} (${index} of ${total}): ${apiMessage(err)} (${m.file})`;
        if (attempt >= steps) throw new Error(message);
        this.o.log.warn({ file: m.file, attempt: attempt + 1, err: message }, 'apply failed; retrying');
        await this.pause(wait);
      }
    }
  }

  private async applyOne(doc: KubeDoc, m: Manifest): Promise<{ handover: boolean; created: boolean }> {
    const existing = await this.read(doc);
    // The status of an object belongs to its controller, never to the manifest.
    const body: KubeDoc = { ...doc };
    delete body.status;
    const recreate = existing && doc.kind === 'Job' && canonicalJson(jobTemplate(existing)) !== canonicalJson(jobTemplate(doc));
    if (recreate) {
      // A Job's template cannot change: the new release's Job replaces the old one, and runs again.
      await this.objects.delete(existing);
      await this.waitGone(existing);
    }
    if (!existing || recreate) {
      try {
        await this.objects.create(body as k8s.KubernetesObject);
      } catch (err) {
        // The operator made its ClusterOperator first: that is as good.
        if (!(doc.kind === 'ClusterOperator' && (err as { code?: number }).code === 409)) throw err;
      }
    } else if (doc.kind !== 'ClusterOperator') {
      // A ClusterOperator is created if missing; after that its operator owns it.
      await this.objects.replace({ ...body, metadata: { ...body.metadata, resourceVersion: existing.metadata.resourceVersion } } as k8s.KubernetesObject);
    }
    // A Job in the payload is work the next manifests depend on: it must finish first.
    const failed = doc.kind === 'Job' ? await this.jobOutcome(doc) : undefined;
    if (failed) throw new Error(`job ${doc.metadata.namespace}/${doc.metadata.name}: ${String(failed)}`);
    this.o.log.debug({ file: m.file, runlevel: m.runlevel, component: m.component, kind: doc.kind, name: doc.metadata.name }, 'applied');
    const isCvo = doc.kind === 'Deployment' && doc.metadata.namespace === CVO_DEPLOYMENT.namespace && doc.metadata.name === CVO_DEPLOYMENT.name;
    return { handover: isCvo && firstImage(existing) !== firstImage(doc), created: !existing };
  }

  private async waitGone(o: KubeDoc): Promise<void> {
    for (let i = 0; i < 100 && (await this.read(o)); i++) await this.pause(1_000);
  }

  /** Step 9: every ClusterOperator whose manifest is in the stage is Available, not Degraded, and at the target versions. */
  private async gate(stage: Stage, desired: Release, done: number, total: number, started: number): Promise<'ok' | 'superseded' | 'waiting'> {
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
    for (;;) {
      const verdict = gateOperators(expected, await this.operators(), this.clock.now() - started, desired.version, done, total);
      await this.cv.writeStatus((s) => withConditions(s, this.at(), verdict.progressing, verdict.failing));
      if (verdict.done) return 'ok';
      if (this.stopped) return 'waiting'; // not done: the next operator gates this runlevel again
      await this.pause(TIMING.gatePoll);
      if (await this.superseded(desired)) return 'superseded';
    }
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
    this.nextReconcile = this.clock.now() + TIMING.reconcile; // everything was just applied
    this.o.log.info({ version, manifests: total }, 'update completed');
  }

  /** Whether spec.desiredUpdate now asks for something other than the release under way. */
  private async superseded(desired: Release): Promise<boolean> {
    const cv = await this.cv.get();
    const r = resolveDesired(cv);
    return r.kind === 'target' && r.target.release.image !== desired.image && !this.recentlyRefused(r.target.release.image);
  }

  private async readProgress(): Promise<Progress | undefined> {
    try {
      const cm = await this.core.readNamespacedConfigMap({ ...PROGRESS });
      const d = cm.data ?? {};
      const since = Number(d.waitingSince);
      return { version: d.version ?? '', image: d.image ?? '', stagesDone: Number(d.stagesDone ?? 0), done: Number(d.done ?? 0), ...(Number.isFinite(since) && d.waitingSince ? { waitingSince: since } : {}) };
    } catch {
      return undefined;
    }
  }

  private async writeProgress(p: Progress): Promise<void> {
    const body = { metadata: { name: PROGRESS.name, namespace: PROGRESS.namespace }, data: { version: p.version, image: p.image, stagesDone: String(p.stagesDone), done: String(p.done), ...(p.waitingSince !== undefined && { waitingSince: String(p.waitingSince) }) } };
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

/**
 * Progress writes from parallel tasks, one at a time and always the latest count, so "N of M" never
 * goes backwards and a status write that fails never fails a task.
 */
class ProgressReporter {
  private latest: number | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly write: (done: number) => Promise<unknown>,
    private readonly log: Logger,
  ) {}

  report(done: number): void {
    this.latest = Math.max(done, this.latest ?? 0);
    this.running ??= this.drain();
  }

  async flush(): Promise<void> {
    await this.running;
  }

  private async drain(): Promise<void> {
    while (this.latest !== undefined) {
      const n = this.latest;
      this.latest = undefined;
      try {
        await this.write(n);
      } catch (err) {
        this.log.warn({ err }, 'progress not written');
      }
    }
    this.running = undefined;
  }
}

const jobTemplate = (o: unknown): unknown => (o as { spec?: { template?: unknown } }).spec?.template;

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
 * nothing but what the cluster holds, as a new pod would. `beforeSync` lets the caller follow the
 * cluster's clock.
 */
export async function runOperator(
  make: () => ClusterVersionOperator,
  o: { clock: Clock; log: Logger; signal: AbortSignal; beforeSync?: () => Promise<void>; changed?: () => Promise<unknown> },
): Promise<void> {
  let cvo = make();
  while (!o.signal.aborted) {
    let result: SyncResult;
    try {
      await o.beforeSync?.();
      result = await cvo.sync();
    } catch (err) {
      o.log.error({ err }, 'update sync failed; will try again');
      result = 'waiting';
    }
    if (result === 'handover') cvo = make();
    else if (result === 'waiting') await pause(o.clock, TIMING.gatePoll, o.signal, 200);
    // Idle: until the ClusterVersion changes (a new desired update), or a minute at the latest.
    else if (result === 'idle') await Promise.race([pause(o.clock, 60_000, o.signal, 200), ...(o.changed ? [o.changed()] : [])]);
  }
}
