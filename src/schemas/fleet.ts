// The fleet API's queries and answers (/api/v1/fleet…): the clusters that poll the graph, as their
// polls recorded them, and what the served graph shows each of them.
import { Type, type Static } from '#typebox';
import { ARCH_PATTERN, CHANNEL_PATTERN } from './cincinnati.js';
import { ReportedClusterState } from './fleetReports.js';
import { NextCursor, PageParams } from './pagination.js';

/**
 * What a record holds in place of a channel, arch or version the server does not serve (the poll
 * recorder puts it there): anyone may poll with any name, so names outside the graph share one value,
 * and the records fall in as many groups as the graph has names, not as many as callers invent.
 */
export const UNSERVED = '(not served)';

/** Version changes kept per cluster (its newest): the rows of `fleet_updates` are bounded as the clusters are. */
export const UPDATES_PER_CLUSTER = 20;

const Duration = (description: string): ReturnType<typeof Type.String> =>
  Type.String({ pattern: '^[0-9]+[smhd]$', maxLength: 12, description, examples: ['24h', '7d'] });
const Time = Type.String({ format: 'date-time' });

const Stranded = Type.Union(
  [Type.Literal('unknown-channel'), Type.Literal('unknown-arch'), Type.Literal('version-not-in-channel')],
  {
    description:
      "Why the cluster's polls get no update: its channel is not served, has no release of its arch, or lacks its version (VersionNotFound)",
  },
);

export const FleetSummaryQuery = Type.Object(
  {
    ...PageParams,
    staleAfter: Type.Optional(Duration('A cluster silent longer than this counts as stale (default 24h)')),
  },
  { additionalProperties: false },
);

const Tally = Type.Object({ name: Type.String(), clusters: Type.Integer() });

export const FleetSummary = Type.Object({
  clusters: Type.Integer({ description: 'Clusters recorded (silent ones are forgotten after --fleet-retention)' }),
  stale: Type.Integer(),
  stranded: Type.Integer(),
  behind: Type.Integer({ description: 'Clusters shown at least one recommended update' }),
  versionUnknown: Type.Integer({ description: 'Clusters whose polls named no version' }),
  staleAfter: Type.String(),
  top: Type.Object({ channels: Type.Array(Tally), arches: Type.Array(Tally), versions: Type.Array(Tally) }),
  polls: Type.Object(
    {
      noId: Type.Integer(),
      malformed: Type.Integer(),
      batchFull: Type.Integer(),
      overCap: Type.Integer({ description: 'New clusters left out at the cap when no silent one could make room' }),
      evicted: Type.Integer({ description: 'Clusters forgotten, least recently seen first, to make room at the cap' }),
      implausibleMoves: Type.Integer({
        description:
          'Version changes not counted as updates: to or from a version the graph lacks, across arches, downgrades (kept, marked suspicious), and an id flipping within one flush (dropped)',
      }),
    },
    {
      description: `Polls not stored, as every replica counted them. A channel, arch or version the graph lacks is recorded as '(not served)'`,
    },
  ),
  recording: Type.Boolean({ description: 'Whether this server records polls (off with --no-fleet)' }),
  reporting: Type.Integer({
    description: 'Clusters that report their ClusterVersion (POST /api/v1/fleet/reports), whether or not they poll',
  }),
  groups: Type.Array(
    Type.Object({
      channel: Type.String(),
      arch: Type.String(),
      version: Type.Union([Type.String(), Type.Null()]),
      clusters: Type.Integer(),
      stale: Type.Integer(),
      stranded: Type.Optional(Stranded),
      behind: Type.Boolean(),
      recommended: Type.Integer({ description: 'Recommended updates shown at this version' }),
      conditional: Type.Integer({ description: 'Conditional updates shown at this version' }),
    }),
  ),
  nextCursor: NextCursor,
});
export type FleetSummary = Static<typeof FleetSummary>;

export const FleetClustersQuery = Type.Object(
  {
    ...PageParams,
    channel: Type.Optional(Type.String({ pattern: CHANNEL_PATTERN, maxLength: 100 })),
    arch: Type.Optional(Type.String({ pattern: ARCH_PATTERN, maxLength: 20 })),
    version: Type.Optional(Type.String({ maxLength: 64 })),
    stranded: Type.Optional(Type.Boolean()),
    exposedTo: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A risk name' })),
    silentFor: Type.Optional(Duration('Only clusters silent for longer than this')),
    id: Type.Optional(Type.String({ maxLength: 64, description: 'One cluster, by the id it polls with' })),
  },
  { additionalProperties: false },
);

const ConditionalUpdate = Type.Object({ version: Type.String(), risks: Type.Array(Type.String()) });

export const FleetClusters = Type.Object({
  clusters: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The cluster id, or its keyed hash with --fleet-hash-ids' }),
      channel: Type.String(),
      arch: Type.String(),
      version: Type.Union([Type.String(), Type.Null()]),
      firstSeen: Time,
      lastSeen: Time,
      versionSince: Time,
      polls: Type.Integer(),
      stranded: Type.Optional(Stranded),
      recommended: Type.Array(Type.String()),
      conditional: Type.Array(ConditionalUpdate),
      history: Type.Array(
        Type.Object({
          from: Type.String({ maxLength: 64 }),
          to: Type.String({ maxLength: 64 }),
          lastAtFrom: Time,
          firstAtTo: Time,
          suspicious: Type.Optional(
            Type.Literal(true, {
              description:
                'Not an update it can have taken (a version the graph lacks, another arch, a downgrade): kept as seen, left out of /fleet/updates',
            }),
          ),
        }),
        {
          maxItems: UPDATES_PER_CLUSTER,
          description: "The cluster's newest version changes as its polls claimed them, oldest first",
        },
      ),
      reported: Type.Optional(
        Type.Composite([ReportedClusterState], {
          description:
            'What the cluster itself reported last (its ClusterVersion and ClusterOperators, with a token bound to it): where it differs from what its polls claim, this is the cluster speaking',
        }),
      ),
    }),
  ),
  nextCursor: NextCursor,
});
export type FleetClusters = Static<typeof FleetClusters>;

export const FleetExposureQuery = Type.Object(
  {
    ...PageParams,
    risk: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    channel: Type.Optional(
      Type.String({ pattern: CHANNEL_PATTERN, maxLength: 100, description: 'Only the groups of this channel' }),
    ),
    arch: Type.Optional(
      Type.String({ pattern: ARCH_PATTERN, maxLength: 20, description: 'Only the groups of this arch' }),
    ),
  },
  { additionalProperties: false },
);

/** Groups listed under a risk at most: the largest. */
export const MAX_GROUPS_PER_RISK = 50;

export const FleetExposure = Type.Object({
  risks: Type.Array(
    Type.Object({
      risk: Type.String(),
      clusters: Type.Integer({ description: 'Clusters shown this risk on a conditional update right now' }),
      groupCount: Type.Integer({ description: 'The groups (channel, arch, version) of those clusters' }),
      groups: Type.Array(
        Type.Object({
          channel: Type.String(),
          arch: Type.String(),
          version: Type.String(),
          clusters: Type.Integer(),
          to: Type.Array(Type.String(), { description: 'The conditional updates carrying the risk' }),
        }),
        { maxItems: MAX_GROUPS_PER_RISK, description: `The largest ${MAX_GROUPS_PER_RISK} groups` },
      ),
    }),
  ),
  nextCursor: NextCursor,
});
export type FleetExposure = Static<typeof FleetExposure>;

export const FleetUpdatesQuery = Type.Object(
  { ...PageParams, since: Type.Optional(Duration('Updates seen in this span (default 30d)')) },
  { additionalProperties: false },
);

export const FleetUpdates = Type.Object({
  since: Type.String(),
  updates: Type.Array(
    Type.Object({
      from: Type.String({ maxLength: 64 }),
      to: Type.String({ maxLength: 64 }),
      arch: Type.String({
        maxLength: 20,
        description: "The arch the cluster's polls name ('(unknown)': it reports and never polled)",
      }),
      started: Type.Integer({
        description:
          'Clusters seen to start this update: their polls moved from `from` to `to`, or their reports say so',
      }),
      completed: Type.Integer({ description: "Reported completed (the ClusterVersion's history)" }),
      failing: Type.Integer({
        description: 'Reported Failing=True while updating, left for another target, or not completed within 3 hours',
      }),
      silent: Type.Integer({ description: 'Neither polled nor reported for an hour, not completed' }),
      progressing: Type.Integer({ description: 'Reported updating, none of the above yet' }),
      medianSeconds: Type.Optional(
        Type.Number({ description: "Of the completed: from the history's startedTime to its completionTime" }),
      ),
      p90Seconds: Type.Optional(Type.Number()),
    }),
    {
      description:
        'Polls alone only say an update started (the version a cluster polls with changes as soon as it begins); what became of it comes from reports',
    },
  ),
  nextCursor: NextCursor,
});
export type FleetUpdates = Static<typeof FleetUpdates>;
