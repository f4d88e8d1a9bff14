// The Prep stage: validates the spec (seed version and image, the OADP and extra-manifest ConfigMaps, a seed
// newer than the cluster), frees container storage (unpinned, unused images, oldest first, until the disk is
// below the threshold — or fails saying why), pulls the seed image and writes the new stateroot from it, then
// precaches the images the seed lists. Each step is recorded (history phases, the host data), so a restarted
// agent goes on where it was.
import { kubeTime } from '../../clock.js';
import { GIB, usagePercent, usedBytes, type ContainerStorage } from '../../cluster/singleNodeHost.js';
import { compareVersions, isReleaseVersion } from '../../graph/version.js';
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
import { MSG, phaseDone, startPhase, startRun, stopPhase } from './status.js';

/** Annotations of the ImageBasedUpgrade that tune the clean-up of container storage (names of the Lifecycle Agent). */
export const DISK_THRESHOLD_ANNOTATION = 'image-cleanup.lca.openshift.io/disk-usage-threshold-percent';
export const CLEANUP_ON_PREP_ANNOTATION = 'image-cleanup.lca.openshift.io/on-prep';
const DEFAULT_THRESHOLD = 50;

/** What Prep pulls: the seed image, and the images it lists (precached). */
const SEED_BYTES = 14 * GIB;
const PRECACHE_BYTES = 10 * GIB;

export async function handlePrep(c: StageContext): Promise<StageResult> {
  const run = startRun(c.ibu, 'Prep', c.now);
  const stateroot = desiredStateroot(c.ibu);
  if (!phaseDone(run, 'StaterootSetup')) {
    const invalid = await validateSpec(c);
    if (invalid) {
      setFailed(c, 'Prep', MSG.prepFailed, `failed to validate IBU spec: ${invalid}`);
      return undefined;
    }
    const disk = freeContainerStorage(c);
    if (disk.error) {
      setFailed(c, 'Prep', MSG.prepFailed, disk.error);
      if (disk.changed) await c.saveHost();
      return undefined;
    }
    if (disk.changed) await c.saveHost();
    const phase = startPhase(run, 'StaterootSetup', c.now);
    const left = Date.parse(phase.startTime!) + WAIT.staterootSetup - c.now;
    if (left > 0) {
      setInProgress(c, 'Prep', 'Setting up stateroot');
      return left;
    }
    // The seed image is pulled and unpacked as the new stateroot.
    const seed = c.ibu.spec!.seedImageRef!;
    if (!c.host.stateroots.some((s) => s.name === stateroot)) {
      pull(c.host.containerStorage, seed.image!, SEED_BYTES, stateroot!, c.now);
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
    const listed = `${c.ibu.spec!.seedImageRef!.image} (images the seed lists)`;
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
