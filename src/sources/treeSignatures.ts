// Signature files of a graph-data tree, read as bytes (verifying them needs the trust store): the
// oc-mirror layout `signatures/sha256/<hex>/signature-<N>`, and next to a release record,
// `releases/<arch>/<version>.signature-<N>` (for that release's payload digest).
import type { TreeSignature } from '../graph/graphDataTree.js';
import { payloadDigest, type Release } from '../graph/model.js';
import type { TreeReader } from './treeReader.js';

/** `releaseFolders`: the files of each releases/<arch>/ folder, as the reader listed them. */
export function readSignatures(
  r: TreeReader,
  releases: Release[],
  releaseFolders: Array<{ arch: string; files: string[] }>,
): TreeSignature[] {
  const out: TreeSignature[] = [];
  for (const hex of r.dirs('signatures/sha256')) {
    if (!/^[0-9a-f]{64}$/.test(hex)) {
      r.error(`signatures/sha256/${hex}`, '-', 'not a sha256 digest (64 lowercase hex digits)');
      continue;
    }
    for (const path of bySignatureNumber(r.list(`signatures/sha256/${hex}`, ['']))) {
      if (!/\/signature-[1-9]\d*$/.test(path)) continue;
      const bytes = r.bytes(path);
      if (bytes) out.push({ file: path, digest: `sha256:${hex}`, bytes });
    }
  }
  const digests = new Map(releases.map((rel) => [`${rel.arch}/${rel.version}`, payloadDigest(rel.payload)]));
  for (const { arch, files } of releaseFolders) {
    for (const path of bySignatureNumber(files)) {
      const m = /\/([^/]+)\.signature-[1-9]\d*$/.exec(path);
      if (!m) continue;
      const digest = digests.get(`${arch}/${m[1]}`);
      if (!digest) {
        r.error(path, '-', `no release record releases/${arch}/${m[1]}.json for this signature`);
        continue;
      }
      const bytes = r.bytes(path);
      if (bytes) out.push({ file: path, digest, bytes });
    }
  }
  return out;
}

/** signature-2 before signature-10, as the store numbers them. */
function bySignatureNumber(paths: string[]): string[] {
  const key = (p: string): [string, number] => {
    const m = /^(.*signature-)(\d+)$/.exec(p);
    return m ? [m[1]!, Number(m[2])] : [p, 0];
  };
  return [...paths].sort((a, b) => {
    const [pa, na] = key(a);
    const [pb, nb] = key(b);
    return pa < pb ? -1 : pa > pb ? 1 : na - nb;
  });
}
