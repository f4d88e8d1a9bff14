// The store contract on SQLite (src/store/store.ts; test/support/storeContract.ts: imports upsert in one
// transaction, a rejected import changes nothing, restarts keep state, a schema newer than the program is
// refused). The contract on a real PostgreSQL is in test/e2e/store-import-postgres.test.ts; serving through
// a bad tree in test/service/app/start/service.test.ts.
import { describe } from 'vitest';
import { storeContract } from '../../support/storeContract.js';

describe('the store on sqlite', () => storeContract('sqlite'));
