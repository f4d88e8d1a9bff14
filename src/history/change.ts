// One change to what the service serves, or to the fleet of clusters it serves: what graph history
// keeps (GET /api/v1/changes) and what webhooks deliver. Plain types that import nothing, below the
// store, the schemas and the services that use them. Every producer hands its changes to the
// ChangeSinks (store/history.ts) in the write transaction that records them, so a change is stored
// (history) and queued for delivery (the webhook outbox) together or not at all.

export const CHANGE_KINDS = [
  'edge-added',
  'edge-removed',
  'risk-declared',
  'risk-changed',
  'risk-withdrawn',
  'release-added',
  'release-withdrawn',
  'clusters-exposed',
  'clusters-stranded',
  'rollout-declared',
  'rollout-halted',
  'rollout-resumed',
  'rollout-cancelled',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface Change {
  kind: ChangeKind;
  /** When the service noticed it (ISO 8601). */
  at: string;
  channel?: string;
  arch?: string;
  /** An edge's ends (edge-added, edge-removed, and a risk's conditional edges). */
  from?: string;
  to?: string;
  /** A release (release-added, release-withdrawn). */
  version?: string;
  /** A risk's name (risk-*, clusters-exposed, rollout-halted). */
  risk?: string;
  /** What made the change: a release, a promotion, a blocked edge, a tombstone, an import, a scrape… */
  cause?: string;
  /** Who, for a change an admin write made: the token's subject. */
  actor?: string;
  /** Whatever else the kind carries (a risk's message and URL, the clusters newly exposed…). */
  detail?: Record<string, unknown>;
}
