// `npm run demo -- --image-based`: an image-based upgrade of a single-node cluster from Idle to finalized. It
// starts Debian's docker-registry and pushes the seed image to it with `cincy seed push`, starts `cincy
// mock-cluster --single-node` (whose host pulls the seed from that registry at Prep, and whose simulated Lifecycle
// Agent manages the ImageBasedUpgrade) on a fast clock, puts the OADP Backup/Restore manifests and an
// extra manifest in ConfigMaps, then moves spec.stage through Prep, Upgrade and Idle with `kubectl patch`,
// showing `cincy get ibu` and the cluster's version along the way. kubectl and docker-registry are needed.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KUBECTL = '/usr/bin/kubectl';
const DOCKER_REGISTRY = '/usr/bin/docker-registry';
const SEED_VERSION = '4.17.2';

const MANIFESTS = `apiVersion: v1
kind: ConfigMap
metadata: {name: oadp-cm, namespace: openshift-adp}
data:
  backup.yaml: |
    apiVersion: velero.io/v1
    kind: Backup
    metadata: {name: apps-backup, namespace: openshift-adp}
    spec: {includedNamespaces: [cnf-app]}
  restore.yaml: |
    apiVersion: velero.io/v1
    kind: Restore
    metadata: {name: apps-restore, namespace: openshift-adp}
    spec: {backupName: apps-backup}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: extra-manifests, namespace: openshift-lifecycle-agent}
data:
  site.yaml: |
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: site-config, namespace: default}
    data: {site: edge-17}
`;

export async function imageBasedDemo({ start, startRegistry, cincy, say, sleep, dir, scale }) {
  for (const [bin, pkg] of [
    [KUBECTL, 'kubernetes-client'],
    [DOCKER_REGISTRY, 'docker-registry'],
  ])
    if (!existsSync(bin)) throw new Error(`${bin} is needed for this demo (apt-get install ${pkg})`);
  say(`working in ${dir}; simulated time runs ${scale}× faster`);
  const registry = await startRegistry();
  say(`cincy seed push --version ${SEED_VERSION} --registry http://${registry}/lca/seed`);
  process.stdout.write(cincy('seed', 'push', '--version', SEED_VERSION, '--registry', `http://${registry}/lca/seed`));
  const SEED = { version: SEED_VERSION, image: `${registry}/lca/seed:${SEED_VERSION}` };
  const kubeconfig = join(dir, 'kubeconfig');
  await start(
    'cincy mock-cluster',
    [
      'mock-cluster',
      '--single-node',
      '--port',
      '0',
      '--cert-dir',
      join(dir, 'tls'),
      '--kubeconfig-out',
      kubeconfig,
      '--version',
      '4.16.3',
      '--time-scale',
      String(scale),
      '--registry-plain-http',
      registry,
    ],
    /listening at (https:\/\/\S+);/,
  );
  const k = ['--kubeconfig', kubeconfig];
  const kubectl = (...args) => {
    const r = spawnSync(KUBECTL, [...k, '--cache-dir', join(dir, 'kube-cache'), ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed:\n${r.stderr}`);
    return r.stdout;
  };
  const apply = (file) => process.stdout.write(kubectl('apply', '-f', file));
  const ibu = () => JSON.parse(cincy('get', 'ibu', 'upgrade', '-o', 'json', ...k));
  const latest = () => {
    const c = ibu().status?.conditions ?? [];
    return c[c.length - 1] ?? {};
  };
  const patch = (spec) => {
    const text = JSON.stringify({ spec });
    say(`kubectl patch ibu upgrade --type merge -p '${text}'`);
    process.stdout.write(kubectl('patch', 'ibu', 'upgrade', '--type', 'merge', '-p', text));
  };
  const node = () => {
    const n = JSON.parse(kubectl('get', 'node', 'master-0', '-o', 'json'));
    const ready = n.status.conditions.find((c) => c.type === 'Ready')?.status;
    const booted = kubectl(
      'get',
      'cm',
      'cincy-mock-host',
      '-n',
      'openshift-lifecycle-agent',
      '-o',
      'jsonpath={.data.booted}',
    );
    return `node ${ready === 'True' ? 'Ready' : 'NotReady'}, booted ${booted}`;
  };
  /** Shows each new DETAILS line (and the node's state) until `done` holds of the latest condition. */
  const follow = async (what, done) => {
    const started = Date.now();
    let last = '';
    for (;;) {
      const c = latest();
      const line = `${c.type ?? ''} ${c.reason ?? ''}: ${c.message ?? ''} (${node()})`;
      if (line !== last)
        process.stdout.write(`  [${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
      last = line;
      if (done(c)) return;
      if (Date.now() - started > 5 * 60_000) throw new Error(`${what} did not finish in 5 minutes`);
      await sleep(300);
    }
  };

  say('the single-node cluster, and its ImageBasedUpgrade at Idle');
  process.stdout.write(cincy('get', 'nodes', ...k));
  process.stdout.write(cincy('get', 'clusterversion', ...k));
  process.stdout.write(kubectl('get', 'ibu'));
  const manifests = join(dir, 'manifests.yaml');
  writeFileSync(manifests, MANIFESTS);
  say('the OADP Backup/Restore manifests and an extra manifest, in ConfigMaps');
  apply(manifests);

  say('an invalid transition is refused: Idle → Upgrade');
  const refused = spawnSync(
    KUBECTL,
    [
      ...k,
      '--cache-dir',
      join(dir, 'kube-cache'),
      'patch',
      'ibu',
      'upgrade',
      '--type',
      'merge',
      '-p',
      '{"spec":{"stage":"Upgrade"}}',
    ],
    { encoding: 'utf8' },
  );
  process.stdout.write(refused.stderr);

  patch({
    stage: 'Prep',
    seedImageRef: SEED,
    oadpContent: [{ name: 'oadp-cm', namespace: 'openshift-adp' }],
    extraManifests: [{ name: 'extra-manifests', namespace: 'openshift-lifecycle-agent' }],
  });
  await follow('Prep', (c) => c.type === 'PrepCompleted' || c.reason === 'Failed');
  process.stdout.write(cincy('get', 'ibu', ...k));

  patch({ stage: 'Upgrade' });
  await follow('Upgrade', (c) => c.type === 'UpgradeCompleted' || c.reason === 'Failed');
  say('the node rebooted into the new stateroot: the cluster runs the seed release');
  process.stdout.write(cincy('get', 'nodes', ...k));
  process.stdout.write(cincy('get', 'clusterversion', ...k));
  process.stdout.write(cincy('get', 'ibu', ...k));

  patch({ stage: 'Idle' });
  await follow('finalizing', (c) => c.type === 'Idle' && c.reason === 'Idle');
  say('finalized: the old stateroot is removed, and there is no going back');
  process.stdout.write(
    kubectl('get', 'cm', 'cincy-mock-host', '-n', 'openshift-lifecycle-agent', '-o', 'jsonpath={.data.stateroots}'),
  );
  process.stdout.write('\n');
  process.stdout.write(kubectl('get', 'ibu'));
}
