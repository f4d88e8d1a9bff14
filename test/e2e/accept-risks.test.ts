// The accept-risks API as a user meets it, on the mock cluster and on a real API server (../shared/kube),
// each as processes: cincy serving a graph whose update to 4.16.6 carries an Always risk, `mock-cluster`
// (on the real server with `--kubeconfig`), the agent and `adm upgrade`, read back with kubectl.
// On the Default feature set the ClusterVersion CRD has no acceptRisks: `adm upgrade accept` says the field
// was dropped, and the agent writes no conditionalUpdateRisks. On TechPreviewNoUpgrade (the real server
// given openshift/api's TechPreviewNoUpgrade CRD): the risk listed with its Applies condition, the update
// refused with UnacceptedRisks even forced, then accepted once the risk is, with the acceptance in its history
// entry (forced past the config operator's Upgradeable=False that the feature set brings).
// What the commands print is compared between the two servers: where they differ, the mock is wrong.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterVersion } from '../../src/agent/clusterVersion.js';
import { cincyAsync, serveCli, useCleanup } from '../support/cli.js';
import { kubectl, kubectlAvailable } from '../support/kubectl.js';
import { serveMock } from '../support/mock.js';
import { startCincy, until } from '../support/processes.js';
import { KUBE_DIR, realApiServerAvailable, useRealApiServer } from '../support/realApiServer.js';
import { tempDir } from '../support/server.js';
import { clusterFlags, image, makeUpdateFixtures, type UpdateFixtures } from '../support/updateFixtures.js';

const cleanup = useCleanup();
const TECH_PREVIEW_CRD = join(KUBE_DIR, 'crds-optional', 'clusterversions-TechPreviewNoUpgrade-2026-08.crd.yaml');
/** One real API server for the file's tests on it, each beginning on a server reset to no cluster. */
const realApiServer = useRealApiServer();
const SCALE = 600;
const RISKY = '4.16.6';
/** The risk the ClusterOperatorUpgradeable source makes of Tech Preview's Upgradeable=False config operator. */
const HELD = 'ClusterOperatorUpgradeable-config-operator';

type ServerKind = 'mock' | 'real';
type FeatureSet = 'Default' | 'TechPreviewNoUpgrade';
let fixtures: UpdateFixtures;
let server = '';
const dir = tempDir();
/** What each command printed on TechPreviewNoUpgrade, by server: compared at the end. */
const printed: Record<ServerKind, Record<string, string>> = { mock: {}, real: {} };

const available = (): boolean => [realApiServerAvailable(), kubectlAvailable()].every(Boolean);

describe.runIf(available())('the accept-risks API on the mock cluster and on a real API server', () => {
  beforeAll(async () => {
    fixtures = await makeUpdateFixtures(dir.path);
    const stopped: Array<() => unknown> = [];
    server = (
      await serveCli(['--db', ':memory:', '--graph-data', fixtures.tree, '--trust-keys', fixtures.trust], {
        add: (f) => void stopped.push(f),
      })
    ).url;
    return async () => {
      for (const f of stopped.reverse()) await f();
    };
  }, 120_000);
  afterAll(() => dir.remove());

  /** A cluster at 4.15.9 in stable-4.16 on `kind` with `featureSet`; its kubeconfig. */
  async function cluster(kind: ServerKind, featureSet: FeatureSet): Promise<string> {
    const d = cleanup.dir();
    const flags = [...clusterFlags(server, fixtures.payloads, SCALE), '--feature-set', featureSet];
    if (kind === 'mock') return (await serveMock(flags, d, cleanup)).kubeconfig;
    const api = await realApiServer();
    if (featureSet === 'TechPreviewNoUpgrade') {
      const replaced = await kubectl(api.kubeconfig, ['replace', '-f', TECH_PREVIEW_CRD]);
      expect(replaced.code, replaced.stderr).toBe(0);
      // The next test on the server begins with the CRD the server started with: the reset puts it back.
    }
    await startCincy(['mock-cluster', '--kubeconfig', api.kubeconfig, ...flags], /simulating on \S+/, cleanup);
    return api.kubeconfig;
  }

  const tools = (kubeconfig: string, said: Record<string, string>) => ({
    cv: async (): Promise<ClusterVersion> => {
      const r = await kubectl(kubeconfig, ['get', 'clusterversion', 'version', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as ClusterVersion;
    },
    run: async (name: string, args: string[]) => {
      const r = await cincyAsync([...args, '--kubeconfig', kubeconfig]);
      // What differs by run and not by server: a log line's time and process id.
      said[name] = `exit ${r.code}\n${r.stdout}${r.stderr}`.replace(/"(time|pid)":\d+/g, '"$1":N');
      return r;
    },
  });
  const recommendedOf = (cv: ClusterVersion, version: string) =>
    cv.status.conditionalUpdates
      ?.find((c) => c.release.version === version)
      ?.conditions.find((k) => k.type === 'Recommended');

  for (const kind of ['mock', 'real'] as const)
    it(`${kind}, Default feature set: acceptRisks is not in the schema, and the agent serves none of the API`, async () => {
      const kubeconfig = await cluster(kind, 'Default');
      const { cv, run } = tools(kubeconfig, {});
      expect((await run('agent', ['agent', '--once'])).code).toBe(0);
      const polled = await cv();
      expect(polled.status.conditionalUpdateRisks).toBeUndefined();
      expect(polled.status.conditionalUpdates?.some((c) => 'riskNames' in c)).toBe(false);
      expect(recommendedOf(polled, RISKY)).toMatchObject({ status: 'False', reason: 'Everywhere' });
      const accept = await run('accept', ['adm', 'upgrade', 'accept', 'Everywhere']);
      expect(accept.code).toBe(1);
      expect(accept.stderr).toContain('the cluster dropped spec.desiredUpdate.acceptRisks');
      // Nothing left behind: no desiredUpdate where there was none.
      expect((await cv()).spec.desiredUpdate).toBeUndefined();
    }, 240_000);

  for (const kind of ['mock', 'real'] as const)
    it(`${kind}, TechPreviewNoUpgrade: the risk listed, the update refused until it is accepted, the acceptance recorded`, async () => {
      const kubeconfig = await cluster(kind, 'TechPreviewNoUpgrade');
      const said = printed[kind];
      const { cv, run } = tools(kubeconfig, said);
      expect((await run('agent --once', ['agent', '--once'])).code).toBe(0);
      const polled = await cv();
      // The graph's risk, and the risk the newest CVO's ClusterOperatorUpgradeable source makes of the
      // config operator's Upgradeable=False (Tech Preview holds minor updates back): RISKY is a minor update.
      const applies = [expect.objectContaining({ type: 'Applies', status: 'True', reason: 'Match', message: '' })];
      expect(polled.status.conditionalUpdateRisks?.map((r) => [r.name, r.conditions])).toEqual([
        [HELD, applies],
        ['Everywhere', applies],
      ]);
      expect(polled.status.conditionalUpdates?.find((c) => c.release.version === RISKY)?.riskNames).toEqual([
        HELD,
        'Everywhere',
      ]);
      // Each of the update's own risks carries its Applies condition too, kept by the CRD of the feature set.
      const own = polled.status.conditionalUpdates?.find((c) => c.release.version === RISKY)?.risks[0] as
        { conditions?: Array<{ type: string; status: string }> } | undefined;
      expect(own?.conditions?.map((k) => `${k.type}=${k.status}`)).toEqual(['Applies=True']);
      expect((await run('accept none', ['adm', 'upgrade', 'accept', '--clear'])).stdout).toBe(
        'info: Accept risks are not changed\n',
      );

      // The agent runs; the update is asked for with its risk not accepted: refused, in the CVO's words.
      const agent = [
        ...['agent', '--kubeconfig', kubeconfig, '--interval', '1', '--payload-store', fixtures.payloads],
        ...['--payload-retrieval', 'pull', '--trust-keys', fixtures.trust],
        ...['--signature-store', `${server}/signatures`, '--follow-mock-clock'],
      ];
      await startCincy(agent, /"msg":"poll"/, cleanup);
      // A minor update, which the Tech Preview feature set holds back (config-operator Upgradeable=False):
      // forced, which passes that precondition but not unaccepted risks.
      const force = ['--force', '--allow-upgrade-with-warnings'];
      const asked = await run('upgrade --to', ['adm', 'upgrade', '--to', RISKY, '--allow-not-recommended', ...force]);
      expect(asked.code, asked.stderr).toBe(0);
      const refused = await until('the refusal', async () =>
        ((c) => c?.status === 'False' && c)((await cv()).status.conditions?.find((k) => k.type === 'ReleaseAccepted')),
      );
      expect(refused).toMatchObject({
        reason: 'UnacceptedRisks',
        message: `Payload loaded version="${RISKY}" image="${image(RISKY)}" is blocked because it is exposed to unaccepted risks [${HELD} Everywhere]`,
      });

      // Accepted: the update is recommended, taken, and its history entry says why.
      expect((await run('accept', ['adm', 'upgrade', 'accept', 'Everywhere'])).stdout).toBe(
        'info: Accept risks are [Everywhere]\n',
      );
      expect((await run('accept again', ['adm', 'upgrade', 'accept', 'Everywhere'])).stdout).toBe(
        'info: Accept risks are not changed\n',
      );
      // The other risk too (one of two accepted is refused as any unaccepted risk is: test/service/agent/update).
      expect((await run('accept held', ['adm', 'upgrade', 'accept', HELD])).stdout).toBe(
        `info: Accept risks are [Everywhere, ${HELD}]\n`,
      );
      const entry = await until(
        'the accepted update',
        async () => ((h) => h?.version === RISKY && h)((await cv()).status.history?.[0]),
        180_000,
      );
      expect(entry.acceptedRisks).toContain(
        `The target release version="${RISKY}" image="${image(RISKY)}" is exposed to the risks [${HELD} Everywhere] and accepted by CVO because all of them are considered acceptable`,
      );
      expect((await cv()).spec.desiredUpdate?.acceptRisks).toEqual([{ name: 'Everywhere' }, { name: HELD }]);
      expect((await run('accept cleared', ['adm', 'upgrade', 'accept', '--clear'])).stdout).toBe(
        'info: Accept risks are []\n',
      );
      expect((await cv()).spec.desiredUpdate?.acceptRisks).toBeUndefined();
    }, 360_000);

  it('the commands print the same on both servers', () => {
    expect(Object.keys(printed.real).length).toBeGreaterThan(0);
    expect(printed.mock).toEqual(printed.real);
  });
});
