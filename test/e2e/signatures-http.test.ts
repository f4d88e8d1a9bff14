// Signatures over HTTP with processes: every test on a PostgreSQL server of the test's own, and on both
// engines the ConfigMap `cincy signatures configmap` prints from a `cincy serve` (test/support/signaturesOverHttp.ts).
// The in-process tests on SQLite are in test/service/server/routes/api/v1/releases/signatures.test.ts.
import { describe } from 'vitest';
import { usePostgres } from '../support/postgres.js';
import { signaturesOverHttp } from '../support/signaturesOverHttp.js';

const postgres = usePostgres();

describe('signatures over HTTP on sqlite', () => signaturesOverHttp('sqlite', { inProcess: false, processes: true }));

describe.runIf(postgres.available)('signatures over HTTP on postgres', () =>
  signaturesOverHttp('postgres', { inProcess: true, processes: true, database: () => postgres.database() }),
);
