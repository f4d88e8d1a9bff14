// The admin API over HTTP (test/support/adminApiContract.ts) with each ladder server's store a database of
// a real PostgreSQL of the test's own, made with initdb in a temporary folder. On SQLite it runs in the
// service tier (test/service/app/admin/services.test.ts).
import { describe } from 'vitest';
import { usePostgres } from '../support/postgres.js';
import { adminApi } from '../support/adminApiContract.js';

const postgres = usePostgres();

describe.runIf(postgres.available)('on postgres', () => adminApi(() => postgres.database()));
