// Graph history's pure parts: the causes and actors given to each change (src/app/history/causes.ts). The
// diff of two states of a view is in viewDiff.test.ts, the state of a built graph in viewState.test.ts.
import { describe, expect, it } from 'vitest';
import { changeActor, attribute } from '../../../../src/app/history/causes.js';
import type { AuditEntry } from '../../../../src/store/audit.js';

const at = '2026-01-01T00:00:00.000Z';
const where = { channel: 'stable-4.16', arch: 'amd64', at };

const entry = (id: number, actor: string, action: string, target: string, after: unknown = null): AuditEntry => ({
  id,
  at,
  actor,
  action,
  target,
  before: null,
  after,
  reason: null,
});

describe('attribute', () => {
  const ctx = {
    knownBefore: new Set(['amd64/4.16.1']),
    channels: [{ name: 'stable-4.16', internal: false, versions: [], tombstones: ['4.16.0'] }],
    blockedEdges: [{ id: 'b', to: '4.16.3', from: '4[.]16[.].*' }],
    audit: [] as AuditEntry[],
  };

  it('gives each change its cause: a new release, a promotion, a tombstone, a blocked edge, metadata', () => {
    const changes = attribute(
      [
        { kind: 'release-added', ...where, version: '4.16.1' },
        { kind: 'release-added', ...where, version: '4.16.2' },
        { kind: 'release-withdrawn', ...where, version: '4.16.0' },
        { kind: 'release-withdrawn', ...where, version: '4.15.9' },
        { kind: 'edge-added', ...where, from: '4.16.1', to: '4.16.2' },
        { kind: 'edge-removed', ...where, from: '4.16.5', to: '4.16.3' },
        { kind: 'edge-removed', ...where, from: '4.15.1', to: '4.15.2' },
        { kind: 'risk-declared', ...where, risk: 'Boom' },
      ],
      ctx,
    );
    expect(changes.map((c) => c.cause)).toEqual([
      'promotion',
      'release',
      'tombstone',
      'withdrawal',
      'release',
      'blocked-edge',
      'metadata',
      'risk',
    ]);
    expect(changes.every((c) => c.actor === undefined)).toBe(true);
  });

  it('takes the actor from the audit entries the change matches, else from the only actor', () => {
    const audit = [
      entry(1, 'alice', 'channel.promote', 'public/stable-4.16', { version: '4.16.2' }),
      entry(2, 'bob', 'risk.add', '4.16.2-Boom', { to: '4.16.2', risk: { name: 'Boom' } }),
    ];
    expect(changeActor({ kind: 'release-added', ...where, version: '4.16.2' }, audit)).toBe('alice');
    expect(changeActor({ kind: 'risk-declared', ...where, risk: 'Boom' }, audit)).toBe('bob');
    expect(changeActor({ kind: 'release-added', ...where, version: '4.16.9' }, audit)).toBeUndefined();
    expect(changeActor({ kind: 'release-added', ...where, version: '4.16.9' }, audit.slice(0, 1))).toBe('alice');
    expect(changeActor({ kind: 'release-added', ...where, version: '4.16.9' }, [])).toBeUndefined();
  });
});
