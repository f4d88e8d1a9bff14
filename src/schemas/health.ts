// The readiness body: whether a graph is served, its size, and the last build or import that failed
// while the last good graph kept serving.
import { Type, type Static } from '@sinclair/typebox';

export const FailureSchema = Type.Object({ at: Type.String(), message: Type.String() });
export type Failure = Static<typeof FailureSchema>;

export const ImportFailureSchema = Type.Composite([
  FailureSchema,
  Type.Object({ problems: Type.Array(Type.String()) }),
]);
export type ImportFailure = Static<typeof ImportFailureSchema>;

export const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not ready')]),
  graph: Type.Optional(
    Type.Object({
      builtAt: Type.String(),
      releases: Type.Integer(),
      channels: Type.Integer(),
      buildSeconds: Type.Number(),
    }),
  ),
  lastBuildFailure: Type.Optional(FailureSchema),
  lastImportFailure: Type.Optional(ImportFailureSchema),
});
