// The metrics (src/server/plugins/metrics.ts) over a listening server: requests, their duration and the
// graph, in Prometheus text.
import { describe, expect, it } from 'vitest';
import { useTreeServer } from '../../../support/treeServer.js';

const CHANNEL = 'stable-4.1';

const served = useTreeServer();
const get = served.get;

describe('service routes', () => {
  it('exposes request, duration and graph metrics in Prometheus text', async () => {
    await get(`/graph?channel=${CHANNEL}`);
    await get('/graph');
    const text = await (await get('/metrics')).text();
    expect(text).toMatch(/cincy_http_requests_total\{route="\/graph",method="GET",status="200"\} \d+/);
    expect(text).toMatch(/cincy_http_requests_total\{route="\/graph",method="GET",status="400"\} \d+/);
    expect(text).toMatch(/cincy_http_request_duration_seconds_bucket\{le="0.005",route="\/graph"\} \d+/);
    expect(text).toContain('cincy_graph_releases{arch="amd64"} 2');
    expect(text).toMatch(/cincy_graph_last_successful_build_timestamp_seconds \d+/);
    expect(text).toContain('cincy_graph_build_failures_total 0');
  });
});
