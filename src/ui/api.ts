// The page's calls to the server it was served from: the same public API a script would use.
import type { Catalog } from '../graph/catalog.js';
import type { Explanation } from '../explain/edge.js';
import type { PathAnswer, PlannedPath } from '../graph/paths.js';
import type { GraphDocument } from '../graph/view.js';
import type { ReleaseDetail } from '../schemas/admin.js';
import type { FleetClusters, FleetExposure, FleetSummary, FleetUpdates } from '../schemas/fleet.js';
import type { ChangeItem, Changes as ChangesPage } from '../schemas/changes.js';
import type { RolloutPhase } from '../graph/rollouts.js';
import type { RolloutDoc } from '../schemas/rollouts.js';

export type { Catalog, ChangeItem, ChangesPage, Explanation, FleetClusters, FleetExposure, FleetSummary, FleetUpdates };
export type { GraphDocument, PathAnswer, PlannedPath, ReleaseDetail, RolloutPhase };

/** A phased rollout as GET /api/v1/rollouts answers it, its phase one of the six the API names. */
export type RolloutAnswer = Omit<RolloutDoc, 'phase'> & { phase: RolloutPhase };
/** What a rollout's clusters came to when the server last counted them. */
export type RolloutAnswerCounts = NonNullable<RolloutAnswer['counts']>;
/** A page of rollouts, newest first. */
export interface RolloutsPage {
  rollouts: RolloutAnswer[];
  nextCursor?: string;
}

/** An answer other than 2xx, with the server's own message. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson<T>(path: string, token?: string): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, { headers });
  const body = (await response.json().catch(() => undefined)) as { value?: string } | undefined;
  if (!response.ok) throw new ApiProblem(response.status, body?.value ?? `${response.status} ${response.statusText}`);
  return body as T;
}

const query = (params: Record<string, string | undefined>): string =>
  new URLSearchParams(
    Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  ).toString();

export const api = {
  catalog: () => getJson<Catalog & { builtAt: string }>('/api/v1/catalog'),
  graph: (channel: string, arch: string) =>
    getJson<GraphDocument>(`/api/upgrades_info/v1/graph?${query({ channel, arch })}`),
  release: (arch: string, version: string) =>
    getJson<ReleaseDetail>(`/api/v1/releases/${encodeURIComponent(arch)}/${encodeURIComponent(version)}`),
  paths: (q: { from: string; to: string; arch: string; mode: string; acceptRisks: string }) =>
    getJson<PathAnswer>(`/api/v1/paths?${query(q)}`),
  explain: (q: { from: string; to: string; channel: string; arch: string }) =>
    getJson<Explanation>(`/api/v1/explain?${query(q)}`),
  changes: (q: { channel: string; arch: string; cursor?: string; limit: string }) =>
    getJson<ChangesPage>(`/api/v1/changes?${query(q)}`),
  /** Phased rollouts, public: a page of them newest first, or one by its id. */
  rollouts: {
    list: (q: { cursor?: string; limit: string }) => getJson<RolloutsPage>(`/api/v1/rollouts?${query(q)}`),
    get: (id: string) => getJson<RolloutAnswer>(`/api/v1/rollouts/${encodeURIComponent(id)}`),
  },
  /** The fleet API takes a token with the scope fleet:read. */
  fleet: {
    summary: (token: string) => getJson<FleetSummary>(`/api/v1/fleet?limit=1000`, token),
    exposure: (token: string, channel: string, arch: string) =>
      getJson<FleetExposure>(
        `/api/v1/fleet/exposure?limit=100&channel=${encodeURIComponent(channel)}&arch=${encodeURIComponent(arch)}`,
        token,
      ),
    updates: (token: string) => getJson<FleetUpdates>(`/api/v1/fleet/updates?limit=1000`, token),
    clusters: (token: string, q: { channel: string; arch: string; stranded?: string; cursor?: string }) =>
      getJson<FleetClusters>(`/api/v1/fleet/clusters?${query({ ...q, limit: '20' })}`, token),
  },
};
