// /api/v1/channels and /api/v1/internal-channels: the routes of one kind of channel, under the prefix
// this folder is registered at (once per kind): the channels themselves (channels.ts: list, read,
// create or replace, delete), their tombstones (tombstones.ts), and the versions promoted into them
// or withdrawn (versions.ts).
import type { FastifyInstance } from 'fastify';
import { channelDocRoutes } from './channels.js';
import type { ChannelRouteOptions } from './kind.js';
import { tombstoneRoutes } from './tombstones.js';
import { versionRoutes } from './versions.js';

export async function channelRoutes(app: FastifyInstance, { kind, admin, tokens }: ChannelRouteOptions): Promise<void> {
  // The options are named one by one: those this plugin was given hold its prefix.
  const opts = { kind, admin, tokens };
  await app.register(channelDocRoutes, opts);
  await app.register(tombstoneRoutes, opts);
  await app.register(versionRoutes, opts);
}
