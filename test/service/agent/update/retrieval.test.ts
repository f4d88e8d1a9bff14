// The payload that cannot be retrieved says why (src/agent/update/retrieval.ts), in words an administrator
// can act on: the Job's namespace missing, the registry refusing the pull. On the simulated API server in
// this process. CRD writes that would damage the cluster are in apply.test.ts.
import { describe, expect, it } from 'vitest';
import { retrievePayload } from '../../../../src/agent/update/retrieval.js';
import { useOperatorRig } from '../../../support/operatorContext.js';
import { image } from '../../../support/updateFixtures.js';

const rig = useOperatorRig();

describe('a payload that cannot be retrieved', () => {
  const release = { version: '4.16.5', image: image('4.16.5') };

  it('names the Job and the missing namespace when the cluster has no openshift-cluster-version', async () => {
    const { ctx } = await rig({ kind: 'job' });
    await ctx.api.delete(
      { group: '', version: 'v1', resource: 'namespaces', namespaced: false },
      { name: 'openshift-cluster-version' },
    );
    expect(await retrievePayload(ctx, release)).toMatch(
      /^could not create the Job openshift-cluster-version\/version-4\.16\.5-\w+: namespaces "openshift-cluster-version" not found \(HTTP 404\)$/,
    );
  });

  it('names the image and the registry failure when the agent pulls it itself', async () => {
    const { ctx } = await rig({
      kind: 'pull',
      registry: { plainHttp: new Set(['127.0.0.1:9']), retries: 0, timeoutMs: 2_000 },
    });
    const pulled = { version: '4.16.5', image: `127.0.0.1:9/ocp/release@sha256:${'a'.repeat(64)}` };
    expect(await retrievePayload(ctx, pulled)).toMatch(
      /^pulling the release image 127\.0\.0\.1:9\/ocp\/release@sha256:a{64} failed: .*127\.0\.0\.1:9/,
    );
    expect(ctx.payloads.has(pulled.image)).toBe(false);
  });
});
