// Channels created, replaced or deleted through the admin API, validated as a channel file is, and
// their tombstones (the versions promotion must never add again) set and lifted one by one.
import { noChannel } from './noChannel.js';
import { ApiError } from '../../errors.js';
import type { Channel } from '../../graph/model.js';
import type { ChannelBody, ChannelDoc, ChannelKind } from '../../schemas/admin.js';
import { channelDoc } from './queries.js';
import { checkChannel } from '../../validation/channels.js';
import type { Problem } from '../../validation/problems.js';
import { invalidRequest, type Actor, type AuditedWrites } from './writes.js';

export class ChannelWrites {
  constructor(private readonly writes: AuditedWrites) {}

  /** Creates or replaces a channel; versions already in it keep the time they entered. */
  putChannel(
    kind: ChannelKind,
    name: string,
    body: ChannelBody,
    actor: Actor,
  ): Promise<{ doc: ChannelDoc; created: boolean }> {
    const problems: Problem[] = [];
    checkChannel({ name, ...body }, 'body', problems);
    if (problems.length) throw invalidRequest(problems);
    const channel: Channel = {
      name,
      internal: kind === 'internal',
      versions: body.versions,
      tombstones: body.tombstones ?? [],
    };
    if (body.feeder) channel.feeder = body.feeder;
    return this.writes.run(async (tx, at) => {
      const before = await tx.channels.get(kind, name);
      // Graph-data 2.x's phased rollouts are not in the API's body: a replaced channel keeps them.
      if (before?.phasing) channel.phasing = before.phasing;
      const outcome = await tx.channels.upsert(channel, at);
      if (outcome !== 'unchanged')
        await this.writes.record(
          tx,
          at,
          actor,
          before ? 'channel.replace' : 'channel.create',
          `${kind}/${name}`,
          before,
          channel,
        );
      return {
        result: { doc: await channelDoc(tx, (await tx.channels.get(kind, name))!), created: !before },
        changed: outcome !== 'unchanged',
        channels: [{ kind, name }],
      };
    });
  }

  /** Deletes a channel with its versions and tombstones; returns what it held. */
  deleteChannel(kind: ChannelKind, name: string, actor: Actor, reason: string | null): Promise<ChannelDoc> {
    return this.writes.run(async (tx, at) => {
      const before = await tx.channels.get(kind, name);
      if (!before) throw await noChannel(tx, kind, name);
      const doc = await channelDoc(tx, before);
      await tx.channels.delete(kind, name);
      await this.writes.record(tx, at, actor, 'channel.delete', `${kind}/${name}`, before, null, reason);
      return { result: doc, changed: true, channels: [{ kind, name }] };
    });
  }

  /**
   * `add`: tombstones a version that is not in the channel (withdraw removes and tombstones a member);
   * `added` is false when it was tombstoned already. `lift`: lifts a tombstone, so promotion may add
   * the version again.
   */
  changeTombstones(
    kind: ChannelKind,
    name: string,
    version: string,
    actor: Actor,
    reason: string | null,
    change: 'add' | 'lift',
  ): Promise<{ doc: ChannelDoc; added: boolean }> {
    const problems: Problem[] = [];
    checkChannel({ name, versions: [], tombstones: [version] }, 'path', problems);
    if (problems.length) throw invalidRequest(problems);
    return this.writes.run(async (tx, at) => {
      const before = await tx.channels.get(kind, name);
      if (!before) throw await noChannel(tx, kind, name);
      const has = before.tombstones.includes(version);
      if (change === 'add' && before.versions.includes(version))
        throw new ApiError(
          'conflict',
          `${version} is in ${kind} channel ${name}: withdraw it, which removes and tombstones it`,
        );
      if (change === 'lift' && !has)
        throw new ApiError('does_not_exist', `${version} is not in the tombstones of ${kind} channel ${name}`);
      const changed = change === 'add' ? !has : true;
      if (changed) {
        const tombstones =
          change === 'add' ? [...before.tombstones, version] : before.tombstones.filter((t) => t !== version);
        await tx.channels.setTombstones(kind, name, tombstones, at);
        await this.writes.record(
          tx,
          at,
          actor,
          change === 'add' ? 'channel.tombstone' : 'channel.tombstone.lift',
          `${kind}/${name}`,
          { version },
          null,
          reason,
        );
      }
      const doc = await channelDoc(tx, (await tx.channels.get(kind, name))!);
      return { result: { doc, added: change === 'add' && changed }, changed, channels: [{ kind, name }] };
    });
  }
}
