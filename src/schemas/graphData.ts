// TypeBox schemas of the inputs: release records and the files of a graph-data tree.
// They give the TypeScript types, the validation of every file, and (for the admin API) the request bodies.
import { Type, type Static } from '#typebox';
import './formats.js';

export const ARCHES = ['amd64', 'arm64', 's390x', 'ppc64le', 'multi'] as const;
export type Arch = (typeof ARCHES)[number];
export const ArchSchema = Type.Union(ARCHES.map((a) => Type.Literal(a)));

/** A pull spec by digest: `registry/repo@sha256:<64 hex>`. */
export const PAYLOAD_PATTERN = '^[^@\\s]+@sha256:[0-9a-f]{64}$';

export const ReleaseRecordSchema = Type.Object(
  {
    kind: Type.Literal('cincinnati-metadata-v0'),
    version: Type.String({ minLength: 1 }),
    previous: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    next: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
    payload: Type.String({ pattern: PAYLOAD_PATTERN }),
    architecture: ArchSchema,
  },
  { additionalProperties: false },
);
export type ReleaseRecord = Static<typeof ReleaseRecordSchema>;

export const FeederSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    filter: Type.Optional(Type.String()),
    delay: Type.Optional(Type.String()),
    errata: Type.Optional(Type.Literal('public')),
  },
  { additionalProperties: false },
);
export type Feeder = Static<typeof FeederSchema>;

export const ChannelFileSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    versions: Type.Array(Type.String({ minLength: 1 })),
    feeder: Type.Optional(FeederSchema),
    tombstones: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);
export type ChannelFile = Static<typeof ChannelFileSchema>;

/**
 * A rule of graph-data 2.x's phased rollouts (openshift/enhancements, "Phased Update Rollouts"): the
 * edges into a release whose source differs from it by `fromVersion` (`patch` or `minor`; other values
 * match no edge) reach the channel's clusters over `duration` from the release's `start`. A rule
 * without `fromVersion` is the channel's default.
 */
export const PhasedRolloutRuleSchema = Type.Object(
  { fromVersion: Type.Optional(Type.String({ minLength: 1 })), duration: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export type PhasedRolloutRule = Static<typeof PhasedRolloutRuleSchema>;

/** A version entry of graph-data 2.x: a name, or a name with the moment its rollout starts (RFC 3339). */
const VersionEntrySchema = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object(
    { name: Type.String({ minLength: 1 }), start: Type.String({ minLength: 1 }) },
    { additionalProperties: false },
  ),
]);

/**
 * A channel file of graph-data 2.x: the 1.x file with phasedRollouts and timed versions, or the
 * enhancement's form, several channels (each with its rules) sharing one list of versions.
 */
export const ChannelFileV2Schema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    channels: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1 }),
            phasedRollouts: Type.Optional(Type.Array(PhasedRolloutRuleSchema, { maxItems: 10 })),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 100 },
      ),
    ),
    phasedRollouts: Type.Optional(Type.Array(PhasedRolloutRuleSchema, { maxItems: 10 })),
    versions: Type.Array(VersionEntrySchema),
    feeder: Type.Optional(FeederSchema),
    tombstones: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);
export type ChannelFileV2 = Static<typeof ChannelFileV2Schema>;

export const AlwaysRuleSchema = Type.Object({ type: Type.Literal('Always') }, { additionalProperties: false });
export const PromQLRuleSchema = Type.Object(
  {
    type: Type.Literal('PromQL'),
    promql: Type.Object({ promql: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type AlwaysRule = Static<typeof AlwaysRuleSchema>;
export type PromQLRule = Static<typeof PromQLRuleSchema>;
/** Always, PromQL, or a type this server does not know: kept and served as given (clusters skip unknown types). */
export type MatchingRule = AlwaysRule | PromQLRule | { type: string; [key: string]: unknown };

export interface Risk {
  url: string;
  name: string;
  message: string;
  matchingRules: MatchingRule[];
}

/** Keys a blocked-edge file may have, by class. */
export const HARD_BLOCK_KEYS = ['to', 'from', 'fixedIn'] as const;
export const RISK_ONLY_KEYS = ['url', 'name', 'message', 'matchingRules', 'autoExtend'] as const;

export const RawMetadataSchema = Type.Record(Type.String(), Type.Record(Type.String(), Type.String()));
export type RawMetadata = Static<typeof RawMetadataSchema>;
