// The first step of an update: what spec.desiredUpdate asks for. As the cluster-version-operator validates
// it (lib/validation/validation.go), a version alone must be an available update, a conditional update or
// one the cluster ran before (which the rollback precondition then refuses); an image is taken as given;
// architecture Multi asks for the multi-architecture release of the version. Anything else is invalid, with
// the CVO's message. Whether the risks of a conditional update are accepted is decided when the release is
// accepted (accept.ts), as the CVO does with accept-risks on.
import type { ClusterRelease, ClusterVersion, ConditionalUpdateStatus } from '../clusterVersion.js';
import type { Condition } from '../conditions.js';

export interface Target {
  release: ClusterRelease;
  force: boolean;
  /** The conditional update it came from, when it is one: its Recommended condition decides a warning. */
  recommended?: Condition;
  conditional?: ConditionalUpdateStatus;
  /** Given by image with no recommendation behind it. */
  explicit: boolean;
}

export type Resolution = { kind: 'none' } | { kind: 'target'; target: Target } | { kind: 'invalid'; message: string };

const sameRelease = (
  a: { version?: string; image?: string },
  b: { version?: string; image?: string } | undefined,
): boolean => !!b && (!a.version || a.version === b.version) && (!a.image || a.image === b.image);

/** Step 1: what spec.desiredUpdate asks for, resolved against status; `none` when the cluster is there already. */
export function resolveDesired(cv: ClusterVersion): Resolution {
  const d = cv.spec.desiredUpdate;
  const force = d?.force === true;
  const available = cv.status.availableUpdates ?? [];
  if (d?.architecture === 'Multi' && cv.status.desired?.architecture !== 'Multi') {
    // A migration to the multi-architecture release of a version (`adm upgrade --to-multi-arch`): the poll
    // offers it once it has asked for arch=multi; until then there is nothing to take.
    const version = d.version || cv.status.desired?.version;
    const multi = available.find((r) => r.architecture === 'Multi' && r.version === version);
    return multi ? { kind: 'target', target: { release: multi, force, explicit: false } } : { kind: 'none' };
  }
  if (!d || (!d.version && !d.image) || sameRelease(d, cv.status.desired)) return { kind: 'none' };
  const conditional = cv.status.conditionalUpdates ?? [];
  const matches = (r: ClusterRelease): boolean =>
    (d.image ? r.image === d.image : r.version === d.version) && (!d.version || r.version === d.version);
  const c = conditional.find((u) => matches(u.release));
  // A conditional update (also listed as available once recommended) is taken as the CVO takes it; with
  // the accept-risks feature on, acceptance then checks its risks.
  if (c) {
    const recommended = c.conditions.find((k) => k.type === 'Recommended');
    return { kind: 'target', target: { release: c.release, force, recommended, conditional: c, explicit: false } };
  }
  const listed = available.find(matches);
  if (listed) return { kind: 'target', target: { release: listed, force, explicit: false } };
  if (d.image)
    return { kind: 'target', target: { release: { version: d.version ?? '', image: d.image }, force, explicit: true } };
  // A version the cluster ran before (a rollback, which the preconditions then refuse unless forced).
  const ran = cv.status.history?.find((h) => h.version === d.version && h.state === 'Completed');
  if (ran)
    return { kind: 'target', target: { release: { version: ran.version, image: ran.image }, force, explicit: true } };
  return {
    kind: 'invalid',
    message: `spec.desiredUpdate.version: Invalid value: "${d.version}": when image is empty the update must be a previous version or an available update`,
  };
}
