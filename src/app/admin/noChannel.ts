// The answer to a channel that does not exist, with the closest name of that kind when one is near.
import { didYouMean } from '../../graph/closestName.js';
import type { ChannelKind } from '../../schemas/admin.js';
import type { StoreTx } from '../../store/store.js';
import { ApiError } from '../../errors.js';

export async function noChannel(tx: StoreTx, kind: ChannelKind, name: string): Promise<ApiError> {
  const known = (await tx.channels.all()).filter((c) => c.internal === (kind === 'internal')).map((c) => c.name);
  return new ApiError('does_not_exist', `no ${kind} channel ${name}${didYouMean(name, known)}`);
}
