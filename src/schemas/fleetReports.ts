// What a cluster reports (POST /api/v1/fleet/reports): its ClusterVersion and ClusterOperators as its
// API server returns them. Only the fields cincy reads are checked here, each with a bound; the rest of
// each object passes untouched and unkept (the route's body limit bounds it). Real objects carry many
// more fields than these, which is why the objects are open.
import { Type, type Static } from '#typebox';
import { CLUSTER_ID_PATTERN } from './clusterId.js';
import { stringEnum } from './stringEnum.js';

/**
 * The largest report taken: a ClusterVersion with its full history and conditional updates, and the
 * ClusterOperators of a large cluster (about 35 in OpenShift, a few KB each without managedFields).
 */
export const REPORT_BODY_LIMIT = 1024 * 1024;
/** The most ClusterOperators a report may list (an OpenShift cluster has about 35). */
export const MAX_REPORTED_OPERATORS = 512;

const Time = Type.String({ format: 'date-time', maxLength: 64 });
const ClusterId = Type.String({ pattern: CLUSTER_ID_PATTERN, description: 'ClusterVersion spec.clusterID' });

const Condition = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 316 }),
  status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
  message: Type.Optional(Type.String({ maxLength: 32768 })),
  lastTransitionTime: Type.Optional(Time),
});
const Conditions = Type.Array(Condition, { maxItems: 64 });

const HistoryEntry = Type.Object({
  state: Type.Union([Type.Literal('Completed'), Type.Literal('Partial')]),
  version: Type.String({
    maxLength: 64,
    description: 'Empty when the cluster was sent to an image whose version it could not read',
  }),
  startedTime: Time,
  completionTime: Type.Optional(Type.Union([Time, Type.Null()])),
});

const ReportedClusterVersion = Type.Object(
  {
    spec: Type.Object({
      clusterID: ClusterId,
      channel: Type.Optional(Type.String({ maxLength: 100 })),
    }),
    status: Type.Optional(
      Type.Object({
        desired: Type.Optional(Type.Object({ version: Type.Optional(Type.String({ maxLength: 64 })) })),
        history: Type.Optional(Type.Array(HistoryEntry, { maxItems: 256, description: 'Newest first' })),
        conditions: Type.Optional(Conditions),
      }),
    ),
  },
  { description: 'The ClusterVersion `version`, as the API server returns it' },
);

const ReportedClusterOperator = Type.Object({
  metadata: Type.Object({ name: Type.String({ minLength: 1, maxLength: 253 }) }),
  status: Type.Optional(
    Type.Object({
      conditions: Type.Optional(Conditions),
      versions: Type.Optional(
        Type.Array(Type.Object({ name: Type.String({ maxLength: 253 }), version: Type.String({ maxLength: 64 }) }), {
          maxItems: 64,
        }),
      ),
    }),
  ),
});

export const FleetReportBody = Type.Object(
  {
    clusterID: ClusterId,
    clusterVersion: ReportedClusterVersion,
    clusterOperators: Type.Array(ReportedClusterOperator, { maxItems: MAX_REPORTED_OPERATORS }),
  },
  { additionalProperties: false },
);
export type FleetReportBody = Static<typeof FleetReportBody>;

export const FLEET_UPDATE_STATES = ['progressing', 'completed', 'failing', 'silent'] as const;
export type FleetUpdateState = (typeof FLEET_UPDATE_STATES)[number];
const UpdateState = stringEnum(
  FLEET_UPDATE_STATES,
  'completed: its history says so; failing: Failing=True while updating, or not completed within 3 hours; silent: neither polled nor reported for an hour since; progressing: none of these yet',
);

export const ReportedUpdate = Type.Object({
  from: Type.String({ maxLength: 64, description: 'The version it left' }),
  to: Type.String({ maxLength: 64 }),
  startedAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Optional(Type.String({ format: 'date-time' })),
  state: UpdateState,
  reason: Type.Optional(
    Type.String({ maxLength: 128, description: "Why it is failing: the Failing condition's reason, or Timeout" }),
  ),
});

export const FleetReportAnswer = Type.Object({
  clusterID: Type.String({ pattern: CLUSTER_ID_PATTERN }),
  reportedAt: Type.String({ format: 'date-time' }),
  update: Type.Optional(ReportedUpdate),
});
export type FleetReportAnswer = Static<typeof FleetReportAnswer>;

/** What the fleet keeps of a cluster's last report, shown beside what its polls claim. */
export const ReportedClusterState = Type.Object({
  reportedAt: Type.String({ format: 'date-time' }),
  channel: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
  version: Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'status.desired.version' }),
  conditions: Type.Array(
    Type.Object({
      type: Type.String(),
      status: Type.String(),
      reason: Type.Optional(Type.String()),
      message: Type.Optional(Type.String()),
    }),
    { description: 'Available, Failing, Progressing, ReleaseAccepted, RetrievedUpdates, Upgradeable, when reported' },
  ),
  operators: Type.Object({
    total: Type.Integer(),
    unavailable: Type.Array(Type.String(), { maxItems: 50 }),
    degraded: Type.Array(Type.String(), { maxItems: 50 }),
    progressing: Type.Array(Type.String(), { maxItems: 50 }),
  }),
  update: Type.Optional(ReportedUpdate),
});
export type ReportedClusterState = Static<typeof ReportedClusterState>;
