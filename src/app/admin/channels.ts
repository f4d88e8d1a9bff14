// Channels created or replaced through the admin API, validated as a channel file is.
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
    const store = this.writes.store;
    return this.writes.run((at) => {
      const before = store.channels.get(kind, name);
      const outcome = store.channels.upsert(channel, at);
      if (outcome !== 'unchanged')
        this.writes.record(
          at,
          actor,
          before ? 'channel.replace' : 'channel.create',
          `${kind}/${name}`,
          before,
          channel,
        );
      return {
        result: { doc: channelDoc(store, store.channels.get(kind, name)!), created: !before },
        changed: outcome !== 'unchanged',
        channels: [{ kind, name }],
      };
    });
  }
}
