// Request and response bodies of the admin API. Release records and blocked edges reuse the
// graph-data schemas, so the API and the tree accept exactly the same documents.
import { Type, type Static } from '#typebox';
import { ARCH_PATTERN, CHANNEL_PATTERN } from './cincinnati.js';
import { FeederSchema, ReleaseRecordSchema } from './graphData.js';
import { NextCursor, PageParams } from './pagination.js';

export const ChannelNameParams = Type.Object({ name: Type.String({ pattern: CHANNEL_PATTERN }) });
export const InternalChannelParams = Type.Object({
  name: Type.Union([Type.Literal('candidate'), Type.Literal('fast'), Type.Literal('stable')]),
});
export const ReleaseParams = Type.Object({
  arch: Type.String({ pattern: ARCH_PATTERN }),
  version: Type.String({ minLength: 1, maxLength: 256 }),
});

export const ChannelBody = Type.Object(
  {
    versions: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 10000 }),
    feeder: Type.Optional(FeederSchema),
    tombstones: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 10000 })),
  },
  { additionalProperties: false },
);
export type ChannelBody = Static<typeof ChannelBody>;

/** Public channels are served; internal ones (the promotion ladder) never are. */
export const ChannelKindSchema = Type.Union([Type.Literal('public'), Type.Literal('internal')]);
export type ChannelKind = Static<typeof ChannelKindSchema>;

export const ChannelDoc = Type.Object({
  name: Type.String(),
  kind: ChannelKindSchema,
  versions: Type.Array(Type.Object({ version: Type.String(), addedAt: Type.String() })),
  feeder: Type.Optional(FeederSchema),
  tombstones: Type.Array(Type.String()),
});
export type ChannelDoc = Static<typeof ChannelDoc>;
export const ChannelList = Type.Object({
  channels: Type.Array(ChannelDoc, { description: 'by name, each with all its versions' }),
  nextCursor: NextCursor,
});
/** One channel as GET shows it: a page of its versions, in the order they entered it. */
export const ChannelPage = Type.Composite([ChannelDoc, Type.Object({ nextCursor: NextCursor })]);
export type ChannelPage = Static<typeof ChannelPage>;

export const PromoteBody = Type.Object(
  {
    version: Type.String({ minLength: 1, maxLength: 256 }),
    force: Type.Optional(Type.Boolean()),
    reason: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type PromoteBody = Static<typeof PromoteBody>;
export const DryRunQuery = Type.Object({ dryRun: Type.Optional(Type.Boolean({ default: false })) });
export const ReasonQuery = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 2000 })) });

/** The rules of a channel's feeder, in the order they are checked; a refusal names the first one broken. */
export const PROMOTION_RULES = [
  'release',
  'tombstone',
  'feeder.source',
  'feeder.filter',
  'feeder.delay',
  'feeder.errata',
] as const;
export const RefusalSchema = Type.Object({
  rule: Type.Union(PROMOTION_RULES.map((r) => Type.Literal(r))),
  message: Type.String(),
});
export type Refusal = Static<typeof RefusalSchema>;

/** A channel's feeder rules applied to one version (src/promotion/verdict.ts), in a dry run and in explain. */
export const FeederCheckSchema = Type.Object({
  feeder: Type.String(),
  inFeeder: Type.Boolean(),
  filter: Type.Optional(Type.String()),
  filterMatches: Type.Optional(Type.Boolean()),
  delay: Type.Optional(Type.String()),
  errata: Type.Optional(Type.Literal('public')),
  hasErrata: Type.Optional(Type.Boolean()),
  inFeederSince: Type.Optional(Type.String({ description: 'When the version entered the feeder channel' })),
  refusal: Type.Optional(
    Type.Object(
      { rule: Type.String(), message: Type.String() },
      { description: 'The first promotion rule that keeps the version out now' },
    ),
  ),
  message: Type.String(),
});

export const EdgeChange = Type.Object({
  arch: Type.String(),
  from: Type.String(),
  to: Type.String(),
  risks: Type.Optional(Type.Array(Type.String())),
});
export type EdgeChange = Static<typeof EdgeChange>;

export const PromotionResult = Type.Object({
  channel: Type.String(),
  kind: ChannelKindSchema,
  version: Type.String(),
  changed: Type.Boolean({
    description: 'false when the version was already in the channel (or a dry run was refused)',
  }),
  forced: Type.Boolean(),
  dryRun: Type.Boolean(),
  refusal: Type.Optional(RefusalSchema),
  feeder: Type.Optional(FeederCheckSchema),
  edges: Type.Optional(
    Type.Array(EdgeChange, { description: 'edges the served graph of the channel gains (dry runs only)' }),
  ),
  conditionalEdges: Type.Optional(Type.Array(EdgeChange)),
});
export type PromotionResult = Static<typeof PromotionResult>;

export const WithdrawalResult = Type.Object({ changed: Type.Boolean() });
export type WithdrawalResult = Static<typeof WithdrawalResult>;

export const ReleaseBody = Type.Union([
  ReleaseRecordSchema,
  Type.Array(ReleaseRecordSchema, { minItems: 1, maxItems: 5000 }),
]);
export const ReleaseListQuery = Type.Object({
  arch: Type.Optional(Type.String({ pattern: ARCH_PATTERN })),
  channel: Type.Optional(Type.String({ pattern: CHANNEL_PATTERN })),
  version: Type.Optional(
    Type.String({ maxLength: 256, description: 'a version, or a prefix ending with * such as 4.16.*' }),
  ),
  ...PageParams,
});

export const RiskBody = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: '^[\\w.+-]+$', maxLength: 200, description: 'defaults to <to>-<name>' })),
    to: Type.String(),
    from: Type.String(),
    url: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    matchingRules: Type.Optional(Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }))),
    fixedIn: Type.Optional(Type.String()),
    autoExtend: Type.Optional(Type.Unknown()),
  },
  { description: 'A conditional risk (to, from, url, name, message, matchingRules) or a hard block (to, from only)' },
);

export const AuditQuery = Type.Object({
  since: Type.Optional(Type.String({ format: 'date-time' })),
  actor: Type.Optional(Type.String({ maxLength: 200 })),
  ...PageParams,
});
export const AuditList = Type.Object({
  entries: Type.Array(
    Type.Object({
      id: Type.Integer(),
      at: Type.String(),
      actor: Type.String(),
      action: Type.String(),
      target: Type.String(),
      before: Type.Unknown({ description: 'the state before (null when there was none)' }),
      after: Type.Unknown({ description: 'the state after (null when there is none)' }),
      reason: Type.Union([Type.String(), Type.Null()]),
    }),
    { description: 'newest first' },
  ),
  nextCursor: NextCursor,
});

export const SignatureDoc = Type.Object({
  n: Type.Integer(),
  digest: Type.String(),
  envelope: Type.Union([Type.Literal('jws'), Type.Literal('openpgp')]),
  keyId: Type.String(),
  verifiedAt: Type.String(),
  url: Type.String({ description: 'where the signature store serves it' }),
});
export type SignatureDoc = Static<typeof SignatureDoc>;

export const ReleaseList = Type.Object({
  releases: Type.Array(ReleaseRecordSchema),
  nextCursor: NextCursor,
});
export type ReleaseList = Static<typeof ReleaseList>;
export type ReleaseListQuery = Static<typeof ReleaseListQuery>;

/** A blocked edge as stored: a conditional risk when `risk` is set, a hard block otherwise. */
export const BlockedEdgeDoc = Type.Object({
  id: Type.String(),
  to: Type.String(),
  from: Type.String(),
  risk: Type.Optional(
    Type.Object({
      url: Type.String(),
      name: Type.String(),
      message: Type.String(),
      matchingRules: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    }),
  ),
  fixedIn: Type.Optional(Type.String()),
  autoExtend: Type.Optional(Type.Unknown()),
});
export const RiskList = Type.Object({
  risks: Type.Array(BlockedEdgeDoc, { description: 'by id' }),
  nextCursor: NextCursor,
});
export const RiskAdded = Type.Composite([
  BlockedEdgeDoc,
  Type.Object({
    warnings: Type.Optional(
      Type.Array(Type.String(), { description: 'what is kept as given, such as a rule of an unknown type' }),
    ),
  }),
]);
export type RiskAdded = Static<typeof RiskAdded>;
export const RiskDeleted = Type.Object({ deleted: BlockedEdgeDoc });

export const ReleaseDetail = Type.Object({
  release: ReleaseRecordSchema,
  channels: Type.Array(
    Type.Object({
      name: Type.String(),
      kind: ChannelKindSchema,
      addedAt: Type.String({ description: 'when the release entered the channel' }),
    }),
  ),
  risks: Type.Array(BlockedEdgeDoc),
  signatures: Type.Array(SignatureDoc),
  served: Type.Boolean({ description: 'false when the graph withholds the release (--require-signatures)' }),
  withheldBecause: Type.Optional(Type.String()),
});
export type ReleaseDetail = Static<typeof ReleaseDetail>;
