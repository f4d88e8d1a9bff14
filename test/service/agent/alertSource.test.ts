// The alert source against a Prometheus that answers over HTTP (a node:http server in this process): the
// alerts last read stand in for a while when it stops answering, then AlertUnknown says they are not known.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { alertSource, STALE_ALERTS_MS, type Alert } from '../../../src/agent/riskSources/alert.js';

const alert = (name: string): Alert => ({
  labels: { alertname: name, severity: 'warning' },
  annotations: { summary: `${name} summary` },
  state: 'firing',
  activeAt: '2026-12-01T10:00:00Z',
});

describe('the alert source over time', () => {
  it('a Prometheus that stops answering: the alerts last read for a while, then AlertUnknown for every update', async () => {
    let up = true;
    const server = createServer((_req, res) => {
      if (!up) return res.writeHead(503).end();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: { alerts: [alert('KubeNodeNotReady')] } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      let now = 1_000_000;
      const source = alertSource({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, () => now);
      const cv = {} as never;
      expect((await source.risks(['4.17.0'], cv)).risks.map((r) => r.name)).toEqual(['KubeNodeNotReady']);
      up = false;
      now += STALE_ALERTS_MS - 1_000;
      const stale = await source.risks(['4.17.0'], cv);
      expect(stale.risks.map((r) => r.name)).toEqual(['KubeNodeNotReady']);
      expect(stale.problem).toMatch(/unexpected HTTP status 503 .* using the alerts read \d+ s ago$/);
      now += 2_000;
      const unknown = await source.risks(['4.17.0'], cv);
      expect(unknown.risks.map((r) => r.name)).toEqual(['AlertUnknown']);
      expect(unknown.versions.get('AlertUnknown')).toEqual(['4.17.0']);
    } finally {
      server.close();
    }
  });
});
