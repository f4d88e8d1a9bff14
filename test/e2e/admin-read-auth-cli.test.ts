// The audit log needs a token to read: `cincy audit`, run as a process against a ladder server in this
// process, sends its token (CINCY_TOKEN) and says why without one. The API's answers are in
// test/service/server/auth.reads.test.ts.
import { describe, expect, it } from 'vitest';
import { api, server, tokens, useLadderServer } from '../support/adminServer.js';
import { cincyAsync } from '../support/cli.js';

useLadderServer();

describe('reliability finding 14: internal channels and the audit log need a token to read', () => {
  it('cincy audit (run as a process) sends its token (CINCY_TOKEN), and says why without one', async () => {
    await api('PUT', '/api/v1/channels/candidate-4.17', { versions: ['4.16.1'] });
    const withToken = await cincyAsync(['audit', '-o', 'json'], { CINCY_SERVER: server.url, CINCY_TOKEN: tokens.all! });
    expect(withToken.code, withToken.stderr).toBe(0);
    expect(JSON.parse(withToken.stdout).entries[0]).toMatchObject({ action: 'channel.create' });
    const without = await cincyAsync(['audit'], { CINCY_SERVER: server.url, CINCY_TOKEN: '' });
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('401 unauthorized');
  });
});
