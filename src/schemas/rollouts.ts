// The phased rollouts API: what a declaration may hold, with its bounds, and what a rollout reads as.
import { Type, type Static } from '#typebox';
import { CHANNEL_PATTERN } from './cincinnati.js';
import { NextCursor, PageParams } from './pagination.js';

/** Canaries a rollout names at most. */
export const MAX_CANARIES = 100;
/** How far from now a start may be. */
export const MAX_START_SKEW_MS = 365 * 86400_000;
/**
 * Rollouts of one channel that may be unfinished at once: each doubles the variants its views are served
 * in, and four decide per cluster at once (app/rollouts/variants.ts: PHASING_PER_CHANNEL).
 */
export const MAX_UNFINISHED_PER_CHANNEL = 4;

const Time = Type.String({ format: 'date-time', maxLength: 64 });

export const HaltAfterSchema = Type.Object(
  {
    failures: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
        description: 'halt once this many clusters that took an edge failed (null: this bound is off)',
      }),
    ),
    fraction: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1 }), Type.Null()], {
        description: 'halt once this share of the clusters that took an edge failed (null: this bound is off)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'either bound reached halts the rollout; default {failures: 2, fraction: 0.05}',
  },
);

export const RolloutBody = Type.Object(
  {
    channel: Type.String({ pattern: CHANNEL_PATTERN, maxLength: 200 }),
    to: Type.String({ minLength: 1, maxLength: 256, description: 'the target release: the edges into it are phased' }),
    from: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'a regular expression over source versions, as a blocked edge has (default: every source)',
      }),
    ),
    start: Type.String({ maxLength: 64, description: 'RFC 3339: when the first clusters are offered the edges' }),
    duration: Type.String({
      maxLength: 64,
      description: 'ISO 8601 (e.g. PT6H, P2D): the last cluster is offered them at start + duration',
    }),
    canaries: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        maxItems: MAX_CANARIES,
        description: 'cluster ids offered the edges at the start, before any other',
      }),
    ),
    haltAfter: Type.Optional(HaltAfterSchema),
    url: Type.Optional(
      Type.String({
        pattern: '^https?://',
        maxLength: 2048,
        description: "the risk's URL while halted (default: this rollout in this API, at --public-url)",
      }),
    ),
    reason: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type RolloutBody = Static<typeof RolloutBody>;

const Counts = Type.Object({
  took: Type.Integer({ description: 'clusters of the channel seen starting an edge of the rollout since its start' }),
  completed: Type.Integer(),
  progressing: Type.Integer(),
  failing: Type.Integer({ description: 'reported Failing, or not Completed 3 hours after it started' }),
  silent: Type.Integer({ description: 'neither polled nor reported for an hour while updating' }),
});

export const RolloutDoc = Type.Object({
  id: Type.String(),
  channel: Type.String(),
  to: Type.String(),
  from: Type.Union([Type.String(), Type.Null()]),
  start: Time,
  end: Time,
  duration: Type.String(),
  canaries: Type.Integer({
    description: 'how many canaries it names: cluster ids are not shown here (the audit log has them)',
  }),
  haltAfter: Type.Object({
    failures: Type.Union([Type.Integer(), Type.Null()]),
    fraction: Type.Union([Type.Number(), Type.Null()]),
  }),
  state: Type.Union([Type.Literal('active'), Type.Literal('halted'), Type.Literal('cancelled')]),
  phase: Type.Union(
    ['scheduled', 'rolling', 'watching', 'completed', 'halted', 'cancelled'].map((p) => Type.Literal(p)),
    { description: 'watching: the window is over, the clusters that took it are still counted (3 hours)' },
  ),
  share: Type.Number({ description: 'the share of the window elapsed: the share of clusters offered the edges' }),
  reason: Type.Union([Type.String(), Type.Null()]),
  stateAt: Type.Union([Time, Type.Null()]),
  haltCounts: Type.Union([Counts, Type.Null()], { description: 'the counts that halted it (a halt by the service)' }),
  counts: Type.Union([Type.Composite([Counts, Type.Object({ countedAt: Time })]), Type.Null()], {
    description: 'the clusters that took it, as last counted by this replica (null: not counted yet)',
  }),
  url: Type.String(),
  createdAt: Time,
  createdBy: Type.String(),
});
export type RolloutDoc = Static<typeof RolloutDoc>;

export const RolloutList = Type.Object({
  rollouts: Type.Array(RolloutDoc, { description: 'newest first' }),
  nextCursor: NextCursor,
});
export type RolloutList = Static<typeof RolloutList>;

export const RolloutListQuery = Type.Object(PageParams);
export const RolloutParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\w-]+$' }) });
export const RolloutActionBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
