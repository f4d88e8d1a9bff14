// The MachineConfigs of the mock cluster, as the Machine Config Operator keeps them: the base configs of
// each pool (00-<pool>, 01-<pool>-container-runtime, 01-<pool>-kubelet, 99-<pool>-generated-registries from
// the controller; 99-<pool>-ssh from the installer) and the rendered config of each release it rolled out
// (rendered-<pool>-<hash>), made when the pool is given it.
import { createHash } from 'node:crypto';
import { kindNamed } from '../apiserver/kinds.js';
import { rhcosImageFor } from './releaseContent.js';
import type { ClusterState } from '../apiserver/state.js';

const ROLE = 'machineconfiguration.openshift.io/role';
const GENERATED_BY = 'machineconfiguration.openshift.io/generated-by-controller-version';
const RELEASE_VERSION = 'machineconfiguration.openshift.io/release-image-version';

/** The commit of the Machine Config Controller a release runs. */
const controllerVersion = (version: string): string =>
  createHash('sha256').update(`mco:${version}`).digest('hex').slice(0, 40);
/** The Ignition spec version the configs of a release are written in. */
const ignitionVersion = (version: string): string =>
  Number(/^\d+\.(\d+)/.exec(version)?.[1] ?? 0) >= 13 ? '3.4.0' : '3.2.0';

/** The OS part of a release's config: what the base config 00-<pool> and the rendered configs carry. */
const osConfig = (version: string): object => ({
  osImageURL: rhcosImageFor(version),
  kernelArguments: null,
  extensions: null,
  fips: false,
});

/** Creates MachineConfig `name` in the Ignition version of `version`'s release, unless it exists. */
function createConfig(
  state: ClusterState,
  name: string,
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> },
  version: string,
  spec: object,
  at: number,
): void {
  const kind = kindNamed('MachineConfig');
  if (state.has(kind, undefined, name)) return;
  state.create(
    kind,
    undefined,
    {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name, ...metadata },
      spec: { config: { ignition: { version: ignitionVersion(version) } }, ...spec },
    },
    at,
  );
}

/** The base MachineConfigs of `pool` that a cluster installed at `version` has. */
export function installMachineConfigs(state: ClusterState, pool: string, version: string, at: number): void {
  const make = (name: string, generated: boolean, spec: object): void =>
    createConfig(
      state,
      name,
      {
        labels: { [ROLE]: pool },
        ...(generated && { annotations: { [GENERATED_BY]: controllerVersion(version) } }),
      },
      version,
      spec,
      at,
    );
  make(`00-${pool}`, true, osConfig(version));
  make(`01-${pool}-container-runtime`, true, {});
  make(`01-${pool}-kubelet`, true, {});
  make(`99-${pool}-generated-registries`, true, {});
  make(`99-${pool}-ssh`, false, {});
}

/** The rendered MachineConfig `name` of `pool` for release `version`, made when missing. */
export function ensureRenderedConfig(
  state: ClusterState,
  pool: string,
  name: string,
  version: string,
  at: number,
): void {
  const annotations = { [GENERATED_BY]: controllerVersion(version), [RELEASE_VERSION]: version };
  createConfig(state, name, { annotations }, version, { ...osConfig(version), kernelType: 'default' }, at);
}
