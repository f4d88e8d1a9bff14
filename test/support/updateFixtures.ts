// The releases the update tests use: which are signed, which payloads are broken, and the graph-data tree
// that offers them. The process-level test makes keys, signatures and payloads with the CLI; the in-process
// tier with the same functions in this process.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeys } from '../../src/cli/signing.js';
import { signPayload } from './signing.js';
import { generatePayload } from '@cincy/simulator/payloads/generate';
import { PayloadStore } from '../../src/payload/store.js';
import { release, writeTree } from './trees.js';
import { afterAll, beforeAll } from 'vitest';
import { TrustStore } from '../../src/signatures/verify.js';
import { tempDir } from './cleanup.js';

export const image = (v: string): string =>
  `quay.example/ocp/release@sha256:${Buffer.from(`release ${v}`).toString('hex').padEnd(64, '0').slice(0, 64)}`;
export const SIGNED = ['4.15.8', '4.16.5', '4.16.6', '4.17.1', '4.16.8', '4.16.9', '4.16.10'];
export const UNSIGNED = ['4.16.7'];
/** Payloads that go wrong: 4.16.8's says it is 4.16.4, 4.16.9 has none, 4.16.10's has a broken manifest. */
export const MADE_AS: Record<string, string | undefined> = { '4.16.8': '4.16.4', '4.16.9': undefined };
export const BROKEN_MANIFEST = '0000_50_console_06_deployment.yaml';
export const KID = 'update-test';

/** The versions whose payload is in the store, each with the version its payload says. */
export const payloadVersions = (): Array<[string, string]> =>
  [...SIGNED, ...UNSIGNED].filter((v) => !(v in MADE_AS) || MADE_AS[v]).map((v) => [v, MADE_AS[v] ?? v]);

/** Breaks the payload of 4.16.10 after it is made. */
export function breakPayload(payloads: string): void {
  writeFileSync(
    join(new PayloadStore(payloads).pathOf(image('4.16.10')), BROKEN_MANIFEST),
    'kind: Deployment\nmetadata: [not, a, map\n',
  );
}

/**
 * The tree: 4.15.9 running, updates to 4.16.x (4.16.6 also from 4.16.5) and 4.17.1, one Always risk, the
 * signatures given. A release `pushed` to a registry has no record here (the server scrapes it) and its
 * signature is that of its pushed image.
 */
export function writeUpdateTree(
  dir: string,
  signatures: Record<string, string>,
  pushed?: { version: string; payload: string },
): string {
  const files: Record<string, string | undefined> = {
    'channels/stable-4.1.yaml': undefined,
    'blocked-edges/4.1.1-Risk.yaml': undefined,
    'releases/amd64/4.1.0.json': undefined,
    'releases/amd64/4.1.1.json': undefined,
    'releases/amd64/4.15.8.json': release('4.15.8', { payload: image('4.15.8') }),
    'releases/amd64/4.15.9.json': release('4.15.9', { previous: ['4.15.8'], payload: image('4.15.9') }),
    'channels/stable-4.16.yaml':
      'name: stable-4.16\nversions: [4.15.8, 4.15.9, 4.16.5, 4.16.6, 4.16.7, 4.16.8, 4.16.9, 4.16.10, 4.17.1]\n',
    'blocked-edges/4.16.6-Everywhere.yaml':
      'to: 4.16.6\nfrom: .*\nurl: https://issues.example/1\nname: Everywhere\nmessage: It breaks everywhere.\nmatchingRules:\n- type: Always\n',
  };
  for (const v of ['4.16.5', '4.16.6', '4.16.7', '4.16.8', '4.16.9', '4.16.10', '4.17.1']) {
    // 4.16.6 is also an update from 4.16.5, for a request that supersedes an update to 4.16.5.
    const previous = v === '4.16.6' ? ['4.15.9', '4.16.5'] : ['4.15.9'];
    files[`releases/amd64/${v}.json`] = release(v, {
      previous,
      payload: image(v),
      metadata: { url: `https://errata.example/${v}` },
    });
  }
  if (pushed) files[`releases/amd64/${pushed.version}.json`] = undefined;
  const payloadOf = (v: string): string => (v === pushed?.version ? pushed.payload : image(v));
  for (const [v, signature] of Object.entries(signatures))
    files[`signatures/sha256/${payloadOf(v).split('sha256:')[1]}/signature-1`] = signature;
  return writeTree(dir, files);
}

export interface UpdateFixtures {
  /** A folder of --trust-keys with the one public key. */
  trust: string;
  payloads: string;
  tree: string;
}

/** Keys, signatures, payloads and the tree, made in this process. */
export async function makeUpdateFixtures(dir: string): Promise<UpdateFixtures> {
  const keys = join(dir, 'keys');
  const key = await generateKeys({ alg: 'EdDSA', kid: KID, out: keys });
  const trust = join(dir, 'trust');
  mkdirSync(trust);
  copyFileSync(key.jwksFile, join(trust, `${KID}.jwks.json`));
  const payloads = join(dir, 'payloads');
  const store = new PayloadStore(payloads);
  for (const [v, madeAs] of payloadVersions())
    store.write(image(v), generatePayload({ version: madeAs, image: image(v) }));
  breakPayload(payloads);
  const signatures: Record<string, string> = {};
  for (const v of SIGNED) signatures[v] = await signPayload(key.privateFile, image(v));
  return { trust, payloads, tree: writeUpdateTree(join(dir, 'tree'), signatures) };
}

/**
 * makeUpdateFixtures for the calling file: made in a temporary folder before its tests (handed to `ready`
 * with the trust store of their key), removed after them.
 */
export function useUpdateFixtures(ready: (fixtures: UpdateFixtures, trust: TrustStore) => void): void {
  const dir = tempDir();
  beforeAll(async () => {
    const fixtures = await makeUpdateFixtures(dir.path);
    ready(fixtures, await TrustStore.load(fixtures.trust));
  }, 60_000);
  afterAll(() => dir.remove());
}

/**
 * The flags of a mock cluster running 4.15.9 in stable-4.16, asking the update service at `server` (a cincy
 * serving writeUpdateTree's tree), on a clock `scale` times real time, its payload Jobs finding payloads in
 * `payloads`.
 */
export function clusterFlags(server: string, payloads: string, scale: number): string[] {
  return [
    '--version',
    '4.15.9',
    '--image',
    image('4.15.9'),
    '--channel',
    'stable-4.16',
    '--upstream',
    `${server}/api/upgrades_info/v1/graph`,
    '--time-scale',
    String(scale),
    '--payload-store',
    payloads,
  ];
}
