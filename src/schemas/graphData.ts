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
