// The update-path planner's, the mirror planner's and the edge explainer's query and answer schemas
// (/api/v1/paths, /api/v1/mirror-plan, /api/v1/explain).
import { Type, type Static } from '#typebox';
import { FeederCheckSchema } from './admin.js';
import { ARCH_PATTERN, CHANNEL_PATTERN, WireRiskSchema } from './cincinnati.js';

/** Paths a plan gives unless asked for another number, and the most it gives. */
export const DEFAULT_PATH_LIMIT = 3;
export const MAX_PATH_LIMIT = 10;

const VERSION_PATTERN = '^[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?$';
const Version = (description: string): ReturnType<typeof Type.String> =>
  Type.String({ pattern: VERSION_PATTERN, maxLength: 100, description, examples: ['4.1.0'] });
const Arch = Type.String({ pattern: ARCH_PATTERN, maxLength: 20, default: 'amd64', description: 'Architecture' });

export const PathsQuery = Type.Object(
  {
    from: Version('The version the cluster runs'),
    to: Version('The version to reach'),
    arch: Type.Optional(Arch),
    channel: Type.Optional(
      Type.String({ pattern: CHANNEL_PATTERN, maxLength: 100, description: 'Only edges of this channel' }),
    ),
    acceptRisks: Type.Optional(
      Type.String({
        pattern: '^[^,]+(,[^,]+)*$',
        maxLength: 2000,
        description: 'Risk names accepted, comma-separated',
      }),
    ),
    mode: Type.Optional(Type.Union([Type.Literal('fewest-hops'), Type.Literal('eus')], { default: 'fewest-hops' })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PATH_LIMIT, default: DEFAULT_PATH_LIMIT, description: 'How many paths' }),
    ),
  },
  { additionalProperties: false },
);
export type PathsQuery = Static<typeof PathsQuery>;

const HopSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  channels: Type.Array(Type.String(), { description: 'The channels in which this edge exists' }),
  recommended: Type.Boolean(),
  risks: Type.Array(WireRiskSchema),
  channel: Type.String({ description: 'The channel the plan puts the cluster on for this hop' }),
});

export const PathsAnswer = Type.Object({
  from: Type.String(),
  to: Type.String(),
  arch: Type.String(),
  mode: Type.Union([Type.Literal('fewest-hops'), Type.Literal('eus')]),
  paths: Type.Array(
    Type.Object({
      hops: Type.Array(HopSchema),
      risksNotAccepted: Type.Array(Type.String()),
      channelSwitches: Type.Integer(),
    }),
  ),
  notes: Type.Array(Type.String()),
  reason: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});

export const MirrorPlanQuery = Type.Object(
  {
    to: Version('The version the clusters are to reach'),
    from: Type.Optional(
      Type.String({
        pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?(,[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?)*$',
        maxLength: 10_000,
        description: 'The versions the clusters run, comma-separated; none plans the target alone',
        examples: ['4.14.1,4.15.3'],
      }),
    ),
    arch: Type.Optional(Arch),
    channel: Type.Optional(
      Type.String({ pattern: CHANNEL_PATTERN, maxLength: 100, description: 'Only edges of this channel' }),
    ),
    mode: Type.Optional(Type.Union([Type.Literal('fewest-hops'), Type.Literal('eus')], { default: 'fewest-hops' })),
  },
  { additionalProperties: false },
);
export type MirrorPlanQuery = Static<typeof MirrorPlanQuery>;

const Reason = Type.Object({ code: Type.String(), message: Type.String() });

export const MirrorPlanAnswer = Type.Object({
  to: Type.String(),
  arch: Type.String(),
  mode: Type.Union([Type.Literal('fewest-hops'), Type.Literal('eus')]),
  sources: Type.Array(
    Type.Union([
      Type.Object({ from: Type.String(), path: Type.Array(Type.String(), { description: 'The source first' }) }),
      Type.Object({ from: Type.String(), reason: Reason }),
    ]),
  ),
  releases: Type.Array(
    Type.Object({
      version: Type.String(),
      payload: Type.String({ description: 'The release image, by digest' }),
      channel: Type.String({ description: 'The channel oc-mirror finds it in' }),
      role: Type.Union([Type.Literal('source'), Type.Literal('intermediate'), Type.Literal('target')]),
    }),
  ),
  notes: Type.Array(Type.String()),
  imageSetConfiguration: Type.Object(
    {
      apiVersion: Type.Literal('mirror.openshift.io/v2alpha1'),
      kind: Type.Literal('ImageSetConfiguration'),
      mirror: Type.Object({
        platform: Type.Object({
          architectures: Type.Array(Type.String()),
          graph: Type.Literal(true),
          channels: Type.Array(
            Type.Object({ name: Type.String(), minVersion: Type.String(), maxVersion: Type.String() }),
          ),
        }),
      }),
    },
    { description: 'For oc-mirror v2: exactly the releases above, and the graph image' },
  ),
});

export const ExplainQuery = Type.Object(
  {
    from: Version('The source version'),
    to: Version('The target version'),
    channel: Type.String({ pattern: CHANNEL_PATTERN, maxLength: 100, description: 'The channel asked about' }),
    arch: Type.Optional(Arch),
  },
  { additionalProperties: false },
);
export type ExplainQuery = Static<typeof ExplainQuery>;

const BlockingFileSchema = Type.Object({
  id: Type.String({ description: 'The blocked-edges file name without .yaml' }),
  from: Type.String(),
  to: Type.String(),
  risk: Type.Optional(WireRiskSchema),
});

export const ExplainAnswer = Type.Object({
  from: Type.String(),
  to: Type.String(),
  channel: Type.String(),
  arch: Type.String(),
  edge: Type.Boolean({ description: 'Whether the channel serves the edge' }),
  recommended: Type.Optional(Type.Boolean()),
  code: Type.Union(
    [
      'unknown-channel',
      'not-a-release',
      'release-removed',
      'not-in-channel',
      'not-listed',
      'removed-by-metadata',
      'blocked',
      'conditional',
      'recommended',
    ].map((c) => Type.Literal(c)),
  ),
  message: Type.String(),
  risks: Type.Optional(Type.Array(WireRiskSchema)),
  notInChannel: Type.Optional(
    Type.Array(
      Type.Object({
        version: Type.String(),
        channels: Type.Array(Type.String()),
        feeder: Type.Optional(FeederCheckSchema),
      }),
    ),
  ),
  metadataRules: Type.Optional(
    Type.Array(Type.Object({ version: Type.String(), label: Type.String(), value: Type.String() })),
  ),
  blockedBy: Type.Optional(Type.Array(BlockingFileSchema)),
  edgeInChannels: Type.Optional(Type.Array(Type.String())),
});
