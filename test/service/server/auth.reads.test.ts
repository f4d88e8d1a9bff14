// The internal channels (the promotion ladder) and the audit log are not public: reading them takes a
// token that verifies, of any scope; the other reads stay public. `cincy audit` sending its token is in
// test/e2e/admin-read-auth-cli.test.ts.
import { describe, expect, it } from 'vitest';
import { api, token, tokens, useLadderServer } from '../../support/adminServer.js';

useLadderServer();

const PROTECTED = ['/api/v1/internal-channels', '/api/v1/internal-channels/candidate', '/api/v1/audit'];

describe('reliability finding 14: internal channels and the audit log need a token to read', () => {
  it('answers 401 without a token or with a bad one, and 200 to a token of any scope', async () => {
    const riskWriter = await token('risks:write', { subject: 'reader' });
    for (const path of PROTECTED) {
      const none = await api('GET', path, undefined, '');
      expect(none.status, `${path} without token`).toBe(401);
      expect(none.body.kind).toBe('unauthorized');
      expect((await api('GET', path, undefined, `${tokens.all!.slice(0, -4)}AAAA`)).status, `${path} forged`).toBe(401);
      expect((await api('GET', path, undefined, riskWriter)).status, `${path} any scope`).toBe(200);
    }
    for (const path of ['/api/v1/channels', '/api/v1/channels/stable-4.16', '/api/v1/releases', '/api/v1/risks'])
      expect((await api('GET', path, undefined, '')).status, `${path} stays public`).toBe(200);
  });
});
