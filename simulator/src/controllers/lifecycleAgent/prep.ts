// The Prep stage: validates the spec (seed version and image, the OADP and extra-manifest ConfigMaps, a seed
// newer than the cluster), has the host pull the seed image (seed.ts) and checks its labels (the seed format),
// frees container storage (unpinned, unused images, oldest first, until the disk is below the threshold — or
// fails saying why), then, as the real agent's stateroot setup job does, checks the seed's version against the
// spec and writes the new stateroot from it, and precaches the images the seed lists. Each step is recorded
// (history phases, the host data), so a restarted agent goes on where it was.
import { kubeTime } from 'cincy/clock';
import { GIB, usagePercent, usedBytes, type ContainerStorage } from '../singleNodeHost.js';
import { compareVersions, isReleaseVersion } from 'cincy/graph/version';
import { CONTAINERS_LIST_FILE, seedLabelsProblem, seedVersion } from '../../payloads/seedImage.js';
import { ManifestError } from './cluster.js';
import {
  desiredStateroot,
  setCompleted,
  setFailed,
  setInProgress,
  WAIT,
  type StageContext,
  type StageResult,
} from './context.js';
import { seedImage } from './seed.js';
import { MSG, phaseDone, startPhase, startRun, stopPhase } from './status.js';

/** Annotations of the ImageBasedUpgrade that tune the clean-up of container storage (names of the Lifecycle Agent). */
export const DISK_THRESHOLD_ANNOTATION = 'image-cleanup.lca.openshift.io/disk-usage-threshold-percent';
export const CLEANUP_ON_PREP_ANNOTATION = 'image-cleanup.lca.openshift.io/on-prep';
const DEFAULT_THRESHOLD = 50;

/** What precaching takes: the images the seed lists are not pulled one by one, and take this much together. */
const PRECACHE_BYTES = 10 * GIB;
/** The stateroot setup job of the real agent, which its failure names (internal/prep StaterootSetupJobName). */
export const STATEROOT_JOB_FAILED =
  'stateroot setup job failed to complete. job-name: lca-prep-stateroot-setup, job-namespace: openshift-lifecycle-agent';

export async function handlePrep(c: StageContext): Promise<StageResult> {
  const run = startRun(c.ibu, 'Prep', c.now);
  const stateroot = desiredStateroot(c.ibu);
  if (!phaseDone(run, 'StaterootSetup')) {
    if (!run.phases?.some((p) => p.phase === 'StaterootSetup')) {
      const invalid = await validateSpec(c);
      if (invalid) {
        setFailed(c, 'Prep', MSG.prepFailed, `failed to validate IBU spec: ${invalid}`);
        return undefined;
      }
      const seed = await seedImage(c);
      if (typeof seed === 'number') return seed;
      const labels = seed.labels && seedLabelsProblem(seed.labels);
      if (labels) {
        setFailed(c, 'Prep', MSG.prepFailed, `failed to validate seed image info: ${labels}`);
        return undefined;
      }
      const disk = freeContainerStorage(c);
      if (disk.error) {
        setFailed(c, 'Prep', MSG.prepFailed, disk.error);
        if (disk.changed) await c.saveHost();
        return undefined;
      }
      if (disk.changed) await c.saveHost();
    }
    const phase = startPhase(run, 'StaterootSetup', c.now);
    const left = Date.parse(phase.startTime!) + WAIT.staterootSetup - c.now;
    if (left > 0) {
      setInProgress(c, 'Prep', 'Setting up stateroot');
      return left;
    }
    // The stateroot setup job: the seed image as pulled, at the version the spec says, unpacked as the new stateroot.
    const seed = c.ibu.spec!.seedImageRef!;
    if (!c.host.stateroots.some((s) => s.name === stateroot)) {
      const pulled = c.host.seedPull?.result;
      const found = pulled?.files ? seedVersion(pulled.files) : undefined;
      const why =
        pulled?.failed?.reason ??
        (!found || 'error' in found
          ? (found?.error ?? 'the seed image was not pulled')
          : found.version !== seed.version
            ? `version specified in seed image (${found.version}) differs from version in spec (${seed.version})`
            : undefined);
      if (why) {
        c.log.error({ job: 'lca-prep-stateroot-setup', image: seed.image }, `stateroot setup failed: ${why}`);
        setFailed(c, 'Prep', MSG.prepFailed, STATEROOT_JOB_FAILED);
        return undefined;
      }
      pull(c.host.containerStorage, seed.image!, pulled!.sizeBytes ?? 0, stateroot!, c.now);
      c.host.stateroots.push({
        name: stateroot!,
        version: seed.version!,
        image: seed.image!,
        createdAt: kubeTime(c.now),
      });
      await c.saveHost();
    }
    stopPhase(run, 'StaterootSetup', c.now);
  }
  if (!phaseDone(run, 'Precache')) {
    const phase = startPhase(run, 'Precache', c.now);
    const left = Date.parse(phase.startTime!) + WAIT.precache - c.now;
    if (left > 0) {
      setInProgress(c, 'Prep', 'Precaching images');
      return left;
    }
    const list = (c.host.seedPull?.result?.files?.[CONTAINERS_LIST_FILE] ?? '').split('\n').filter((l) => l.trim());
    const listed = `${c.ibu.spec!.seedImageRef!.image} (the ${list.length} images the seed lists)`;
    if (!c.host.containerStorage.images.some((i) => i.image === listed)) {
      pull(c.host.containerStorage, listed, PRECACHE_BYTES, stateroot!, c.now);
      await c.saveHost();
    }
    stopPhase(run, 'Precache', c.now);
  }
  run.completionTime ??= kubeTime(c.now);
  setCompleted(c, 'Prep', MSG.prepCompleted, 'Prep stage completed successfully');
  return undefined;
}

function pull(storage: ContainerStorage, image: string, sizeBytes: number, stateroot: string, now: number): void {
  storage.images.push({ image, sizeBytes, pinned: false, inUse: false, created: kubeTime(now), stateroot });
}

/** What is wrong with the spec for an upgrade, naming the field; undefined when it is fine. */
async function validateSpec(c: StageContext): Promise<string | undefined> {
  const seed = c.ibu.spec?.seedImageRef ?? {};
  if (!seed.version) return 'spec.seedImageRef.version is required';
  if (!isReleaseVersion(seed.version))
    return `spec.seedImageRef.version "${seed.version}" is not a release version (x.y.z)`;
  if (!seed.image) return 'spec.seedImageRef.image is required';
  const current = (await c.cluster.clusterVersion()).version;
  if (isReleaseVersion(current) && compareVersions(seed.version, current) <= 0)
    return `spec.seedImageRef.version ${seed.version} is not newer than the version the cluster runs (${current})`;
  try {
    for (const [i, ref] of (c.ibu.spec?.oadpContent ?? []).entries()) {
      const objects = await c.cluster.manifests(ref, `spec.oadpContent[${i}]`);
      const other = objects.find(
        (o) => o.apiVersion !== 'velero.io/v1' || (o.kind !== 'Backup' && o.kind !== 'Restore'),
      );
      if (other)
        return `spec.oadpContent[${i}]: ConfigMap ${ref.namespace}/${ref.name} holds a ${other.apiVersion} ${other.kind}; only velero.io/v1 Backup and Restore belong there`;
    }
    for (const [i, ref] of (c.ibu.spec?.extraManifests ?? []).entries())
      await c.cluster.manifests(ref, `spec.extraManifests[${i}]`);
  } catch (err) {
    if (err instanceof ManifestError) return err.message;
    throw err;
  }
  return undefined;
}

/**
 * Deletes unpinned images no container uses, oldest first, until the container-storage disk is used below the
 * threshold; an error when even that is not enough. Disabled by the on-prep annotation.
 */
function freeContainerStorage(c: StageContext): { changed: boolean; error?: string } {
  const annotations = c.ibu.metadata.annotations ?? {};
  if (annotations[CLEANUP_ON_PREP_ANNOTATION] === 'Disabled') return { changed: false };
  const given = annotations[DISK_THRESHOLD_ANNOTATION];
  const threshold =
    given !== undefined && /^\d+$/.test(given) && Number(given) <= 100 ? Number(given) : DEFAULT_THRESHOLD;
  const storage = c.host.containerStorage;
  let changed = false;
  const candidates = storage.images
    .filter((i) => !i.pinned && !i.inUse && i.stateroot === undefined)
    .sort((a, b) => a.created.localeCompare(b.created));
  for (const image of candidates) {
    if (usagePercent(storage) <= threshold) break;
    storage.images.splice(storage.images.indexOf(image), 1);
    c.log.info({ image: image.image, bytes: image.sizeBytes }, 'deleted an unpinned image to free container storage');
    changed = true;
  }
  if (usagePercent(storage) <= threshold) return { changed };
  const gib = (n: number): string => `${(n / GIB).toFixed(1)} GiB`;
  return {
    changed,
    error: `insufficient space in container storage: ${usagePercent(storage)}% used (${gib(usedBytes(storage))} of ${gib(storage.sizeBytes)}) is above the ${threshold}% threshold (${DISK_THRESHOLD_ANNOTATION}), and no unpinned image is left to delete`,
  };
}
