// Why each change of a view happened, and who made it when an admin write did. Causes: `release` (a
// release new to the arch), `promotion` (a release that entered the channel), `tombstone` (a version
// withdrawn from the channel with a tombstone), `withdrawal` (a release that left the channel or the
// store otherwise), `blocked-edge` (a hard block added or removed), `risk` (a conditional risk
// declared, changed or withdrawn), `metadata` (an edge the releases' own metadata added or removed).
// Actors come from the audit entries written between the two recorded snapshots (actors.ts).
import type { BlockedEdge, Channel } from '../../graph/model.js';
import type { AuditEntry } from '../../store/audit.js';
import type { Change } from '../../history/change.js';

export interface CauseContext {
  /** `arch/version` of every release some view listed before. */
  knownBefore: ReadonlySet<string>;
  /** The channels and blocked edges of the new snapshot's input. */
  channels: readonly Channel[];
  blockedEdges: readonly BlockedEdge[];
  /** The audit entries written between the previous recorded snapshot and this one, oldest first. */
  audit: readonly AuditEntry[];
}

/** Sets `cause` and `actor` on every change of one view (channel, arch); returns the same array. */
export function attribute(changes: Change[], ctx: CauseContext): Change[] {
  const releaseCause = new Map<string, string>();
  for (const c of changes) {
    if (c.kind === 'release-added')
      releaseCause.set(c.version!, ctx.knownBefore.has(`${c.arch}/${c.version}`) ? 'promotion' : 'release');
    if (c.kind === 'release-withdrawn') releaseCause.set(c.version!, tombstoned(ctx, c) ? 'tombstone' : 'withdrawal');
  }
  const blockAudited = ctx.audit.some((e) => e.action.startsWith('block.'));
  for (const c of changes) {
    if (c.kind === 'release-added' || c.kind === 'release-withdrawn') c.cause = releaseCause.get(c.version!);
    else if (c.kind === 'edge-added' || c.kind === 'edge-removed')
      c.cause =
        releaseCause.get(c.to!) ??
        releaseCause.get(c.from!) ??
        (blockAudited || (c.kind === 'edge-removed' && hardBlocked(ctx, c.from!, c.to!)) ? 'blocked-edge' : 'metadata');
    else c.cause = 'risk';
    const actor = changeActor(c, ctx.audit);
    if (actor) c.actor = actor;
  }
  return changes;
}

function tombstoned(ctx: CauseContext, c: Change): boolean {
  const channel = ctx.channels.find((ch) => !ch.internal && ch.name === c.channel);
  return !!channel?.tombstones.some((t) => t === c.version || t === `${c.version}+${c.arch}`);
}

/** A hard block (no risk) of this edge in the input: `to` exact, `from` a regular expression on the whole version. */
function hardBlocked(ctx: CauseContext, from: string, to: string): boolean {
  return ctx.blockedEdges.some((b) => {
    if (b.risk || b.to !== to) return false;
    try {
      return new RegExp(`^(?:${b.from})$`).test(from);
    } catch {
      return false;
    }
  });
}

/** The actor of the audit entries this change matches (the newest one), else the sole actor of them all. */
export function changeActor(c: Change, audit: readonly AuditEntry[]): string | undefined {
  const matches = audit.filter((e) => matchesEntry(c, e));
  if (matches.length) return matches[matches.length - 1]!.actor;
  const actors = new Set(audit.map((e) => e.actor));
  return actors.size === 1 ? [...actors][0] : undefined;
}

function matchesEntry(c: Change, e: AuditEntry): boolean {
  const state = (e.after ?? e.before ?? {}) as {
    version?: string;
    tombstoned?: string;
    to?: string;
    risk?: { name?: string };
  };
  const versions = c.version ? [c.version] : [c.from, c.to].filter((v): v is string => !!v);
  if (c.kind.startsWith('risk-')) return e.action.startsWith('risk.') && state.risk?.name === c.risk;
  if (e.action.startsWith('channel.') && e.target === `public/${c.channel}`)
    return e.action === 'channel.create' || e.action === 'channel.replace' || e.action === 'channel.delete'
      ? true
      : versions.includes(state.version ?? state.tombstoned ?? '');
  if (e.action.startsWith('release.')) return versions.some((v) => e.target === `${c.arch}/${v}`);
  if (e.action.startsWith('block.') || e.action.startsWith('risk.'))
    return c.kind.startsWith('edge-') && state.to === c.to;
  return false;
}
