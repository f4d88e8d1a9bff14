// Steps 2 to 6 of an update, from a resolved target to a release recorded in status — or a
// ReleaseAccepted=False condition saying why not, in the cluster-version-operator's words
// (pkg/cvo/sync_worker.go): the signature, the payload Job, loading the payload and checking its
// version, the preconditions; then status.desired, a Partial history entry and ReleaseAccepted=True.
import { documentCount, PayloadError, type Payload } from '../../payload/load.js';
import { acceptedRiskNames, acceptRisksOn, riskNamesOf, unacceptedRisks } from '../acceptRisks.js';
import { controlPlaneArch } from '../architecture.js';
import { setCondition, type ClusterRelease, type ClusterVersion } from '../clusterVersion.js';
import { NOT_FAILING } from './progressing.js';
import type { OperatorContext } from './context.js';
import { working } from './progressing.js';
import { ABANDONED } from './payloadJob.js';
import { retrievePayload } from './retrieval.js';
import { describePrecondition, preconditions, upgradeableFrom } from './preconditions.js';
import type { ProgressStore } from './progress.js';
import { resolveDesired, type Target } from './resolve.js';

export type Acceptance =
  | { kind: 'accepted'; desired: ClusterRelease; payload: Payload }
  | { kind: 'refused'; reason: string; message: string }
  | { kind: 'superseded' };

export async function acceptRelease(
  ctx: OperatorContext,
  progress: ProgressStore,
  cv: ClusterVersion,
  target: Target,
): Promise<Acceptance> {
  const { release, force } = target;
  const image = release.image;
  const said = (version: string): string => `version="${version}" image="${image}"`;
  const refuse = async (reason: string, message: string): Promise<Acceptance> => {
    ctx.log.warn({ reason, message }, 'release not accepted');
    const refused = {
      type: 'ReleaseAccepted',
      status: 'False' as const,
      lastTransitionTime: ctx.at(),
      reason,
      message,
    };
    await ctx.cv.writeStatus((s) => ({ ...s, conditions: setCondition(s.conditions, refused) }));
    return { kind: 'refused', reason, message };
  };

  const risks: string[] = [];
  const verification = await ctx.verifier.verify(
    image,
    cv.spec.signatureStores?.map((s) => s.url),
  );
  if (!verification.verified) {
    if (!force)
      return refuse(
        'RetrievePayload',
        `Retrieving payload failed ${said(release.version)} failure=${verification.message}`,
      );
    risks.push(
      `Target release ${said(release.version)} cannot be verified, but continuing anyway because the update was forced: ${verification.message}`,
    );
  }
  const stillWanted = async (): Promise<boolean> => {
    const r = resolveDesired(await ctx.cv.get());
    return r.kind === 'target' && r.target.release.image === image;
  };
  const job = await retrievePayload(ctx, release, async () => !(await stillWanted()));
  if (job === ABANDONED) return { kind: 'superseded' };
  if (job)
    return refuse(
      'RetrievePayload',
      `Retrieving payload failed ${said(release.version)} failure=Unable to download and prepare the update: ${job}`,
    );
  let payload: Payload;
  try {
    payload = ctx.payloads.load(image);
  } catch (err) {
    if (!(err instanceof PayloadError)) throw err;
    return refuse('LoadPayload', `Loading payload failed ${said(release.version)} failure=${err.message}`);
  }
  if (release.version && payload.version !== release.version) {
    const failure = `release image version ${payload.version} does not match the expected upstream version ${release.version}`;
    return refuse('VerifyPayloadVersion', `Verifying payload failed ${said(release.version)} failure=${failure}`);
  }

  const current = cv.status.desired?.version ?? payload.version;
  // Read again after the Job's wait: an operator may have changed its mind meanwhile.
  const upgradeable = upgradeableFrom(await ctx.operators(), ctx.at(), await ctx.adminAck(cv));
  const failed = preconditions(current, target, payload.version, upgradeable);
  const blocking = failed.filter((p) => p.blocking);
  const summary =
    blocking.length === 1
      ? describePrecondition(blocking[0]!)
      : `Multiple precondition checks failed:\n* ${blocking.map(describePrecondition).join('\n* ')}`;
  if (blocking.length && !force)
    return refuse('PreconditionChecks', `Preconditions failed for payload loaded ${said(payload.version)}: ${summary}`);
  if (blocking.length) risks.push(`Forced through blocking failures: ${summary}`);
  risks.push(...failed.filter((p) => !p.blocking).map(describePrecondition));

  // With the accept-risks feature on, a conditional update needs each risk that applies to be accepted. The
  // refusal's and the history's words are those of the enhancement (openshift/enhancements
  // update/accepted-risks.md), as no released CVO code states them yet.
  if (target.conditional && (await acceptRisksOn(ctx.api, cv, ctx.acceptRisks))) {
    const names = riskNamesOf(target.conditional);
    const unaccepted = unacceptedRisks(target.conditional, cv.status.conditionalUpdateRisks, acceptedRiskNames(cv));
    // Force passes verification and preconditions, not this: only accepting the risks does.
    if (unaccepted.length)
      return refuse(
        'UnacceptedRisks',
        `Payload loaded ${said(payload.version)} is blocked because it is exposed to unaccepted risks [${unaccepted.join(' ')}]`,
      );
    risks.push(
      `The target release ${said(payload.version)} is exposed to the risks [${names.join(' ')}] and accepted by CVO because all of them are considered acceptable`,
    );
  }

  const url = release.url ?? (payload.metadata.metadata?.url as string | undefined);
  const desired: ClusterRelease = {
    version: payload.version,
    image,
    ...(url ? { url } : {}),
    channels: release.channels ?? [],
    ...(release.architecture ? { architecture: release.architecture } : {}),
  };
  const at = ctx.at();
  const total = documentCount(payload.manifests);
  await progress.write({ version: desired.version, image, stagesDone: 0, done: 0 });
  const accepted = await payloadLoaded(ctx, cv, { version: payload.version, image });
  await ctx.cv.writeStatus((s, fresh) => {
    const history = (s.history ?? []).map((h, i) =>
      i === 0 && h.completionTime === null ? { ...h, completionTime: at } : h,
    );
    let conditions = setCondition(s.conditions, {
      type: 'ReleaseAccepted',
      status: 'True',
      lastTransitionTime: at,
      reason: 'PayloadLoaded',
      message: accepted,
    });
    conditions = setCondition(conditions, {
      type: 'Progressing',
      status: 'True',
      lastTransitionTime: at,
      reason: '',
      message: working(desired.version, 0, total),
    });
    conditions = setCondition(conditions, { type: 'Failing', lastTransitionTime: at, ...NOT_FAILING });
    const entry = {
      state: 'Partial' as const,
      startedTime: at,
      completionTime: null,
      version: desired.version,
      image,
      verified: verification.verified,
      ...(risks.length ? { acceptedRisks: risks.join('\n') } : {}),
    };
    return {
      ...s,
      desired,
      observedGeneration: fresh.metadata.generation ?? s.observedGeneration,
      history: [entry, ...history].slice(0, 100),
      conditions,
    };
  });
  ctx.log.info(
    { version: desired.version, image, verified: verification.verified, acceptedRisks: risks, manifests: total },
    'release accepted',
  );
  return { kind: 'accepted', desired, payload };
}

/** ReleaseAccepted=True's message for a loaded release, as the CVO words it (pkg/cvo/sync_worker.go syncPayload). */
export async function payloadLoaded(
  ctx: OperatorContext,
  cv: ClusterVersion,
  release: { version: string; image: string },
): Promise<string> {
  const arch = cv.status.desired?.architecture === 'Multi' ? 'multi' : await controlPlaneArch(ctx.api);
  return `Payload loaded version="${release.version}" image="${release.image}" architecture="${arch}"`;
}

/**
 * The ReleaseAccepted condition to write when nothing new is asked for: one about another release than the
 * current one (a refused target, since cleared) is reset to the current release, as syncPayload resets a
 * payload status that "no longer applies to desired target"; otherwise none.
 */
export async function acceptedCurrent(
  ctx: OperatorContext,
  cv: ClusterVersion,
): Promise<{ type: string; status: 'True'; lastTransitionTime: string; reason: string; message: string } | undefined> {
  const current = cv.status.desired;
  const condition = cv.status.conditions?.find((c) => c.type === 'ReleaseAccepted');
  if (!current?.image || !condition || condition.message.includes(`image="${current.image}"`)) return undefined;
  return {
    type: 'ReleaseAccepted',
    status: 'True',
    lastTransitionTime: ctx.at(),
    reason: 'PayloadLoaded',
    message: await payloadLoaded(ctx, cv, { version: current.version ?? '', image: current.image }),
  };
}
