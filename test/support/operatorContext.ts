// The update executor's context on a simulated cluster in the test's process (4.15.9 in stable-4.16, the
// API server pruning as kube-apiserver does), for tests that call its steps one by one
// (test/service/agent/update/: apply, retrieval).
import pino from 'pino';
import { OperatorContext, type PayloadRetrieval } from '../../src/agent/update/context.js';
import { ReleaseVerifier } from '../../src/agent/update/verify.js';
import { ManualClock } from '@cincy/simulator/clock/manual';
import { PayloadStore } from '../../src/payload/store.js';
import { TrustStore } from '../../src/signatures/verify.js';
import { InProcessCluster } from '@cincy/simulator/testing/inProcessCluster';
import { useCleanup } from './cleanup.js';
import { image } from './updateFixtures.js';

export type OperatorRig = (
  retrieval?: PayloadRetrieval,
) => Promise<{ cluster: InProcessCluster; ctx: OperatorContext }>;

/** Call once at the top of a test file: each rig it returns makes is closed after its test. */
export function useOperatorRig(): OperatorRig {
  const cleanup = useCleanup();
  return async (retrieval = { kind: 'job' }) => {
    const cluster = await InProcessCluster.start({
      version: '4.15.9',
      image: image('4.15.9'),
      channel: 'stable-4.16',
      payloadStore: cleanup.dir(),
    });
    cleanup.add(() => cluster.close());
    const { api } = cluster.client();
    const ctx = new OperatorContext({
      api,
      clock: new ManualClock(),
      payloads: new PayloadStore(cleanup.dir()),
      retrieval,
      verifier: new ReleaseVerifier(TrustStore.empty(), api, []),
      workers: 1,
      log: pino({ level: 'silent' }),
    });
    return { cluster, ctx };
  };
}
