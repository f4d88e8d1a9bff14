// Automatic promotion: one pass applies every channel's feeder, internal channels first and then
// public ones, each channel after the channel that feeds it, so a release can climb several rungs
// in one pass when no delay holds it. Audited as the actor `feeder`.
import { compilePattern } from '../../graph/pattern.js';
import type { Channel } from '../../graph/model.js';
import { splitArch } from '../../graph/version.js';
import type { ChannelKind } from '../../schemas/admin.js';
import { channelKind } from '../../store/channels.js';
import type { MembersSince } from './feederRules.js';
import type { Promotion } from './promotion.js';
import type { Actor, AuditedWrites } from './writes.js';

export interface Promoted {
  channel: string;
  kind: ChannelKind;
  version: string;
}

export class FeederPass {
  constructor(
    private readonly writes: AuditedWrites,
    private readonly promotion: Promotion,
  ) {}

  /** Applies every feeder once, in one transaction with one rebuild. */
  autoPromote(actor: Actor = { subject: 'feeder' }): Promise<Promoted[]> {
    const rules = this.promotion.rules;
    return this.writes.run(async (tx, at) => {
      const done: Promoted[] = [];
      // Feeder channels are read once per pass, and again only after this pass promoted into them.
      const cache = new Map<string, Map<string, Date>>();
      const read = rules.membersSince(tx);
      const since: MembersSince = async (kind, name) => {
        let m = cache.get(`${kind}/${name}`);
        if (!m) cache.set(`${kind}/${name}`, (m = await read(kind, name)));
        return m;
      };
      // Once a pass: every target checks against them.
      const raw = await tx.rawMetadata.all();
      const releases = await tx.releases.all();
      for (const target of feederOrder(await tx.channels.all())) {
        const kind = channelKind(target);
        const source = await rules.feederSource(tx, target.feeder);
        if (!source) continue;
        const members = new Set(target.versions);
        const filter = target.feeder?.filter === undefined ? undefined : compilePattern(target.feeder.filter);
        const verdictOf = await rules.forTarget(tx, target, { since, raw, releases });
        for (const version of (await since(source.kind, source.channel.name)).keys()) {
          if (members.has(version) || (filter && !filter.matchesStart(splitArch(version).version))) continue; // cheap checks first
          if (verdictOf(version).refusal) continue;
          await this.promotion.add(tx, at, kind, target.name, version, actor);
          cache.delete(`${kind}/${target.name}`);
          done.push({ channel: target.name, kind, version });
        }
      }
      return {
        result: done,
        changed: done.length > 0,
        channels: done.map(({ kind, channel }) => ({ kind, name: channel })),
      };
    });
  }
}

/** Channels with a feeder, each after the channel its feeder names (internal names first on ties). */
function feederOrder(channels: Channel[]): Channel[] {
  const fed = channels.filter((c) => c.feeder);
  const key = (c: Channel): string => `${channelKind(c)}/${c.name}`;
  const byName = new Map<string, Channel>();
  for (const c of channels) if (!byName.has(c.name) || c.internal) byName.set(c.name, c);
  const out: Channel[] = [];
  const seen = new Set<string>();
  const visit = (c: Channel, depth: number): void => {
    if (seen.has(key(c)) || depth > channels.length) return;
    const source = c.feeder && byName.get(c.feeder.name);
    if (source?.feeder) visit(source, depth + 1);
    if (seen.has(key(c))) return;
    seen.add(key(c));
    if (c.feeder) out.push(c);
  };
  for (const c of [...fed].sort((a, b) => Number(b.internal) - Number(a.internal) || (a.name < b.name ? -1 : 1)))
    visit(c, 0);
  return out;
}
