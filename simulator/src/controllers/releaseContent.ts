// What an OpenShift release ships on its nodes, as a real cluster reports it in status.nodeInfo: the
// kubelet of the Kubernetes release of its minor (v1.29.10+<build> on 4.16, whatever its z-stream), RHCOS
// built on the minor's RHEL (416.94.<build date>-0 (Plow)), its kernel and CRI-O.
import { createHash } from 'node:crypto';

/** The Kubernetes release of each OpenShift 4 minor (minor → patch of 1.<minor + 13>), as its later z-streams ship it. */
const KUBERNETES_PATCH: Record<number, number> = {
  10: 17,
  11: 17,
  12: 16,
  13: 15,
  14: 16,
  15: 15,
  16: 10,
  17: 10,
  18: 7,
  19: 6,
  20: 3,
};

/** The RHEL release each OpenShift 4 minor builds RHCOS on. */
const RHEL: Array<{ from: number; rhel: [number, number]; kernel: string }> = [
  { from: 19, rhel: [9, 6], kernel: '5.14.0-570' },
  { from: 16, rhel: [9, 4], kernel: '5.14.0-427' },
  { from: 13, rhel: [9, 2], kernel: '5.14.0-284' },
  { from: 11, rhel: [8, 6], kernel: '4.18.0-372' },
  { from: 0, rhel: [8, 4], kernel: '4.18.0-305' },
];

const ARCH_SUFFIX: Record<string, string> = { amd64: 'x86_64', arm64: 'aarch64', s390x: 's390x', ppc64le: 'ppc64le' };

const parts = (version: string): { minor: number; z: number } => {
  const m = /^\d+\.(\d+)\.(\d+)/.exec(version);
  return { minor: Number(m?.[1] ?? 0), z: Number(m?.[2] ?? 0) };
};
/** Hex digits that stand for a release's build: the same for a release every time. */
const build = (version: string, what: string, n = 7): string =>
  createHash('sha256').update(`${what}:${version}`).digest('hex').slice(0, n);

/** The Kubernetes version of an OpenShift release: 1.<minor + 13>.<the minor's patch>. */
export function kubernetesVersionOf(version: string): string {
  const { minor } = parts(version);
  return `1.${minor + 13}.${KUBERNETES_PATCH[minor] ?? 0}`;
}

/** The kubelet a release ships, as a node reports it: v1.29.10+1a2b3c4. */
export const kubeletVersionFor = (version: string): string =>
  `v${kubernetesVersionOf(version)}+${build(version, 'kubelet')}`;

/** status.nodeInfo's osImage, kernelVersion and containerRuntimeVersion of an RHCOS node on `version`. */
export function rhcosNodeInfo(
  version: string,
  arch: string,
): { osImage: string; kernelVersion: string; containerRuntimeVersion: string } {
  const { minor, z } = parts(version);
  const { rhel, kernel } = RHEL.find((r) => minor >= r.from)!;
  const [major, rhelMinor] = rhel;
  const day = new Date(Date.UTC(2024, 0, 1) + (parseInt(build(version, 'date', 4), 16) % 700) * 86_400_000);
  const stamp = `${day.toISOString().slice(0, 10).replace(/-/g, '')}${String(z % 24).padStart(2, '0')}00`;
  const kube = kubernetesVersionOf(version);
  return {
    osImage: `Red Hat Enterprise Linux CoreOS 4${minor}.${major}${rhelMinor}.${stamp}-0 (${major === 9 ? 'Plow' : 'Ootpa'})`,
    kernelVersion: `${kernel}.${20 + z}.1.el${major}_${rhelMinor}.${ARCH_SUFFIX[arch] ?? arch}`,
    containerRuntimeVersion: `cri-o://${kube}-${2 + (z % 5)}.rhaos4.${minor}.git${build(version, 'crio')}.el${major}`,
  };
}

/** The RHCOS image a release's nodes boot (the rhel-coreos image of its payload). */
export const rhcosImageFor = (version: string): string =>
  `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${createHash('sha256').update(`rhel-coreos:${version}`).digest('hex')}`;
