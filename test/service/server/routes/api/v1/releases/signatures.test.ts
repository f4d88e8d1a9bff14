// Signatures over HTTP on a server in this process, on SQLite: ingest, the signature store, --require-signatures,
// a key no longer trusted, the exported tree (test/support/signaturesOverHttp.ts). On PostgreSQL, and the
// ConfigMap `cincy` prints, in test/e2e/signatures-http.test.ts.
import { describe } from 'vitest';
import { signaturesOverHttp } from '../../../../../../support/signaturesOverHttp.js';

describe('signatures over HTTP on sqlite', () => signaturesOverHttp('sqlite', { inProcess: true, processes: false }));
