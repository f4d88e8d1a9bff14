// A write in this process that waits too long for another connection's write lock on the database file
// is a 503 that wrote nothing. The server's writes next to other processes, and its rebuilds, are in
// test/e2e/writes-and-rebuilds.test.ts.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AuditedWrites } from '../../../../src/app/admin/writes.js';
import { GraphService } from '../../../../src/app/graphService.js';
import { systemClock } from '../../../../src/clock.js';
import { ApiError } from '../../../../src/errors.js';
import { Store } from '../../../../src/store/store.js';
import { useCleanup } from '../../../support/cleanup.js';

const cleanup = useCleanup();

describe('writes next to another process', () => {
  it('reliability finding 8: a write that waited too long for the lock is a 503 that wrote nothing', async () => {
    const work = cleanup.dir();
    const file = join(work, 'cincy.db');
    const store = await Store.open(file, { sqlite: { busyWaitMs: 300 } });
    cleanup.add(() => store.close());
    const graph = new GraphService(store);
    cleanup.add(() => graph.close());
    const writes = new AuditedWrites(store, graph, systemClock);
    const other = new Database(file);
    cleanup.add(() => other.close());
    other.exec('BEGIN IMMEDIATE');
    const attempt = writes.run(async (tx, at) => {
      await tx.channels.upsert({ name: 'late', internal: false, versions: [], tombstones: [] }, at);
      return { result: 'written', changed: true };
    });
    const err = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    other.exec('ROLLBACK');
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).statusCode).toBe(503);
    expect((err as ApiError).value).toContain('the database is busy');
    expect(await store.read((tx) => tx.channels.get('public', 'late'))).toBeUndefined();
  });
});
