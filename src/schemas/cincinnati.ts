// The Cincinnati wire format as TypeBox schemas: the graph request's parameters, the graph document
// (openshift/cincinnati, docs/design/cincinnati.md), and the {kind, value} error body.
import { Type } from '#typebox';

export const CHANNEL_PATTERN = '^[0-9a-z\\-\\.]+$';
export const ARCH_PATTERN = '^[0-9a-z]+$';
export const MEDIA_TYPES = ['application/vnd.redhat.cincinnati.v1+json', 'application/json'] as const;

export const GraphQuerySchema = Type.Object(
  {
    channel: Type.String({
      pattern: CHANNEL_PATTERN,
      description: 'Channel name, e.g. stable-4.14',
      examples: ['stable-4.16'],
    }),
    arch: Type.Optional(
      Type.String({
        pattern: ARCH_PATTERN,
        default: 'amd64',
        description: 'Architecture: amd64, arm64, s390x, ppc64le or multi',
      }),
    ),
    id: Type.Optional(Type.String({ description: 'Cluster UUID; does not change the graph' })),
    version: Type.Optional(Type.String({ description: 'Current cluster version; does not change the graph' })),
  },
  { additionalProperties: true },
);

export const MatchingRuleSchema = Type.Union([
  Type.Object({ type: Type.Literal('Always') }),
  Type.Object({ type: Type.Literal('PromQL'), promql: Type.Object({ promql: Type.String() }) }),
  Type.Object({ type: Type.String() }, { additionalProperties: true }),
]);

export const WireRiskSchema = Type.Object({
  url: Type.String(),
  name: Type.String(),
  message: Type.String(),
  matchingRules: Type.Array(MatchingRuleSchema),
});

export const GraphDocumentSchema = Type.Object(
  {
    version: Type.Literal(1),
    nodes: Type.Array(
      Type.Object({
        version: Type.String(),
        payload: Type.String(),
        metadata: Type.Record(Type.String(), Type.String()),
      }),
    ),
    edges: Type.Array(Type.Tuple([Type.Integer(), Type.Integer()]), { description: '[fromIndex, toIndex] into nodes' }),
    conditionalEdges: Type.Array(
      Type.Object({
        edges: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
        risks: Type.Array(WireRiskSchema),
      }),
    ),
  },
  { description: 'Cincinnati graph (v1)' },
);

export const ErrorSchema = Type.Object(
  { kind: Type.String({ examples: ['invalid_params'] }), value: Type.String() },
  { description: 'Every error body' },
);
