// What the routes of one kind of channel share (channels/index.ts registers them once per kind, public
// and internal): the options they take, the tag and path parameters they are documented with, and
// the reason a write may give.
import { Type } from '#typebox';
import { ChannelNameParams, InternalChannelParams, type ChannelKind } from '../../../../../schemas/admin.js';
import type { AdminRouteOptions } from '../../../adminRouteOptions.js';

export interface ChannelRouteOptions extends AdminRouteOptions {
  kind: ChannelKind;
}

/** The OpenAPI tag and the path parameters of the routes of a kind of channel. */
export function channelKindDoc(kind: ChannelKind) {
  const params = kind === 'public' ? ChannelNameParams : InternalChannelParams;
  return {
    tag: kind === 'public' ? 'channels' : 'internal channels',
    params,
    versionParams: Type.Intersect([params, Type.Object({ version: Type.String() })]),
  };
}

export const reasonOf = (request: { query: { reason?: string } }): string | null => request.query.reason ?? null;
