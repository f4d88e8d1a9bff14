// The store contract (test/support/storeContract.ts) on a real PostgreSQL of the test's own, made with
// initdb in a temporary folder. On SQLite it runs in the service tier (test/service/store/store.test.ts).
import { describe } from 'vitest';
import { usePostgres } from '../support/postgres.js';
import { storeContract } from '../support/storeContract.js';

const postgres = usePostgres();

describe.runIf(postgres.available)('the store on postgres', () => storeContract('postgres', () => postgres.database()));
