// The reporting loop (src/reporter/reporter.ts) on a clock that records its waits: a report when the
// cluster changed or the interval passed, nothing in between, and waits that double after failures.
import { describe, expect, it } from 'vitest';
import type { ClusterApi } from '../../../src/cluster/api.js';
import { MAX_BACKOFF_MS, runReporter, type ReportBody } from '../../../src/reporter/reporter.js';

const ID = '0b6e3c8a-1d2f-4a5b-8c9d-0e1f2a3b4c5d';

function rig(sendResults: Array<'ok' | 'fail' | 'busy'>, checks: number) {
  let now = 0;
  const waits: number[] = [];
  const stop = new AbortController();
  let version = '4.16.1';
  const api = {
    get: async () => ({ metadata: { name: 'version' }, spec: { clusterID: ID }, status: { desired: { version } } }),
    list: async () => ({ items: [], metadata: {} }),
  } as unknown as ClusterApi;
  const sent: string[] = [];
  const clock = {
    now: () => now,
    sleep: async (ms: number) => {
      waits.push(ms);
      now += ms;
      if (waits.length === 3) version = '4.16.2';
      if (waits.length >= checks) stop.abort();
    },
  };
  const send = async (body: ReportBody) => {
    const r = sendResults.shift() ?? 'ok';
    if (r === 'fail') throw new Error('503 service_unavailable');
    if (r === 'busy') throw Object.assign(new Error('429 rate_limited'), { retryAfterSeconds: 45 });
    sent.push(JSON.stringify(body.clusterVersion.status));
    return 'reported';
  };
  // The top of each backoff's random range: the longest it may wait.
  const random = (): number => 0.999_999;
  const run = runReporter({
    ...{ api, send, clock, checkMs: 10_000, intervalMs: 300_000 },
    ...{ log: () => {}, signal: stop.signal, random },
  });
  return { run, waits, sent };
}

describe('runReporter', () => {
  it('reports at once, again when the cluster changes or the interval passed, and not in between', async () => {
    const r = rig([], 40);
    expect(await r.run).toBe(3); // at start, on the change after the third check, and 300 s later
    expect(r.sent.map((s) => JSON.parse(s).desired.version)).toEqual(['4.16.1', '4.16.2', '4.16.2']);
    expect(new Set(r.waits)).toEqual(new Set([10_000]));
  });

  it('waits up to twice as long after each failure (from half of it), up to ten minutes, and checks as often again once it works', async () => {
    const r = rig(['fail', 'fail', 'fail', 'fail', 'fail', 'fail', 'fail', 'ok'], 10);
    await r.run;
    expect(r.waits.slice(0, 9).map((w) => Math.round(w / 1000) * 1000)).toEqual([
      20_000,
      40_000,
      80_000,
      160_000,
      320_000,
      MAX_BACKOFF_MS,
      MAX_BACKOFF_MS,
      10_000,
      10_000,
    ]);
  });

  it('waits at least what a refusal says in Retry-After before it tries again', async () => {
    const r = rig(['busy', 'ok'], 3);
    await r.run;
    expect(r.waits[0]).toBe(45_000);
    expect(r.waits[1]).toBe(10_000);
  });

  it('waits at a random point of the second half of its backoff, so a fleet does not come back at once', async () => {
    const r = rig(['fail', 'fail', 'ok'], 4);
    await r.run;
    expect(r.waits[0]).toBeGreaterThanOrEqual(10_000);
    expect(r.waits[0]).toBeLessThan(20_000);
  });
});
