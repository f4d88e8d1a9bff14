// The readiness body: whether a graph is served, its size, and the last build or import that failed
// while the last good graph kept serving, and how the registry sources were read.
import { Type, type Static } from '#typebox';
import { stringEnum as oneOf } from './stringEnum.js';

export const FailureSchema = Type.Object({ at: Type.String(), message: Type.String() });
export type Failure = Static<typeof FailureSchema>;

export const ImportFailureSchema = Type.Composite([
  FailureSchema,
  Type.Object({ problems: Type.Array(Type.String()) }),
]);
export type ImportFailure = Static<typeof ImportFailureSchema>;

/** A registry source read at start and every scrape interval: how its last reads went. */
export const SourceStatusSchema = Type.Object({
  name: Type.String({ description: 'the repository or image, as configured' }),
  kind: oneOf(['registry-releases', 'graph-data-image'] as const),
  ready: Type.Boolean({ description: 'read once, now or by an earlier run of this store' }),
  reads: Type.Integer(),
  failures: Type.Integer(),
  lastAttemptAt: Type.Optional(Type.String()),
  readingSince: Type.Optional(Type.String({ description: 'when the read under way began (absent between reads)' })),
  readingForSeconds: Type.Optional(Type.Number({ description: 'how long the read under way has taken so far' })),
  lastSuccessAt: Type.Optional(Type.String()),
  lastDurationSeconds: Type.Optional(Type.Number()),
  releases: Type.Optional(Type.Integer({ description: 'releases the last good scrape found' })),
  digest: Type.Optional(Type.String({ description: 'the graph-data image digest last imported' })),
  lastFailure: Type.Optional(ImportFailureSchema),
  warnings: Type.Optional(
    Type.Array(Type.String(), {
      description: 'the first 20 warnings of the last read that held: tags left out, and why',
    }),
  ),
  flapping: Type.Optional(
    Type.Object(
      {
        since: Type.String(),
        heldBack: Type.Integer({ description: 'answers held back since then' }),
      },
      {
        description:
          'present while the source flips back to answers it gave before: each flip is held back until two reads in a row agree',
      },
    ),
  ),
  heldBack: Type.Optional(Type.Integer({ description: 'answers held back as flips, since the start' })),
});
export type SourceStatus = Static<typeof SourceStatusSchema>;

export const ReadinessSchema = Type.Object({
  status: oneOf(['ready', 'not ready'] as const),
  reason: Type.Optional(Type.String({ description: 'why the server is not ready' })),
  database: Type.Optional(
    Type.String({
      description:
        'why the database cannot be reached or written now (unreachable, or full); the last graph keeps serving',
    }),
  ),
  demo: Type.Optional(
    Type.Literal(true, { description: 'the graph served is the bundled demo data (invented releases), not real data' }),
  ),
  leader: Type.Optional(
    Type.Boolean({
      description:
        'of replicas sharing PostgreSQL: whether this one runs the jobs that run once (auto-promotion, registry scrapes)',
    }),
  ),
  graph: Type.Optional(
    Type.Object({
      builtAt: Type.String(),
      releases: Type.Integer(),
      channels: Type.Integer(),
      buildSeconds: Type.Number(),
    }),
  ),
  certificate: Type.Optional(
    Type.String({
      description: 'why clients refuse the TLS certificate served (expired, or not valid yet); served all the same',
    }),
  ),
  lastBuildFailure: Type.Optional(FailureSchema),
  lastImportFailure: Type.Optional(ImportFailureSchema),
  importing: Type.Optional(
    Type.String({
      maxLength: 4096,
      description:
        'the graph-data given at start, being read and imported after a restart; the graph the store held serves meanwhile',
    }),
  ),
  sources: Type.Optional(Type.Array(SourceStatusSchema)),
});
