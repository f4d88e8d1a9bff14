// The admin API over HTTP on a ladder server in this process, its store SQLite in memory: the release
// lifecycle up the promotion ladder with an injected clock, dry runs (also under --require-signatures),
// export round trip, automatic promotion, and concurrent writes with readers that only ever see consistent
// graphs (test/support/adminApiContract.ts). On PostgreSQL: test/e2e/admin-api-postgres.test.ts.
import { describe } from 'vitest';
import { adminApi } from '../../../support/adminApiContract.js';

describe('on sqlite', () => adminApi());
