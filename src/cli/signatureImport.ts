// `cincy signatures import FILE…`: the signature ConfigMaps oc-mirror writes for a disconnected cluster
// (namespace openshift-config-managed, label release.openshift.io/verification-signatures, binaryData keys
// `sha256-<hex>-<n>`), as YAML or JSON, one or several documents or a List, uploaded to a cincy server.
// Each signature goes to every release whose payload has its digest; the server verifies it against its
// --trust-keys as for `signatures add`. A ConfigMap without the label, or a key not of that form, is named
// and left out; a digest no release has is named; the exit code is 1 when anything was refused.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from '#yaml';
import { KUBE_LABEL } from '../cluster/labels.js';
import { callWithStatus, HttpError, listAll, type ClientOptions } from './admin.js';
import { escapeLine } from './terminalText.js';

interface Signature {
  file: string;
  key: string;
  digest: string;
  bytes: Buffer;
}

const KEY = /^sha256-([0-9a-f]{64})-(\d+)$/;

/** The signatures of the files' ConfigMaps, and what was left out of them and why. */
export function signaturesOf(files: Array<{ name: string; text: string }>): {
  signatures: Signature[];
  skipped: string[];
} {
  const signatures: Signature[] = [];
  const skipped: string[] = [];
  for (const { name, text } of files) {
    const docs = parseAllDocuments(text);
    for (const [i, doc] of docs.entries()) {
      if (doc.errors.length) throw new Error(`${name}: document ${i + 1}: ${doc.errors[0]!.message.split('\n')[0]}`);
      const value = doc.toJS() as unknown;
      const items = isObject(value) && value.kind === 'List' && Array.isArray(value.items) ? value.items : [value];
      for (const item of items) {
        if (!isObject(item) || item.kind !== 'ConfigMap') {
          skipped.push(`${name}: a ${isObject(item) ? String(item.kind) : typeof item}, not a ConfigMap`);
          continue;
        }
        const meta = isObject(item.metadata) ? item.metadata : {};
        const cm = `${name}: ConfigMap ${String(meta.name ?? '(no name)')}`;
        const labels = isObject(meta.labels) ? meta.labels : {};
        if (!(KUBE_LABEL.verificationSignatures in labels)) {
          skipped.push(`${cm}: no ${KUBE_LABEL.verificationSignatures} label: not a signature ConfigMap`);
          continue;
        }
        const data = isObject(item.binaryData) ? item.binaryData : {};
        for (const [key, b64] of Object.entries(data)) {
          const m = KEY.exec(key);
          if (!m || typeof b64 !== 'string' || !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(b64)) {
            skipped.push(
              `${cm}: binaryData ${JSON.stringify(key.slice(0, 100))}: not sha256-<hex>-<n> with base64 bytes`,
            );
            continue;
          }
          signatures.push({ file: name, key, digest: `sha256:${m[1]}`, bytes: Buffer.from(b64, 'base64') });
        }
      }
    }
  }
  return { signatures, skipped };
}

export async function importSignatureConfigMaps(files: string[], opts: ClientOptions): Promise<number> {
  const { signatures, skipped } = signaturesOf(files.map((f) => ({ name: f, text: readFileSync(f, 'utf8') })));
  for (const s of skipped) process.stderr.write(`skipped: ${escapeLine(s)}\n`);
  // Releases by the digest of their payload (a digest may be the payload of several architectures' records).
  const releases = await listAll(opts, '/api/v1/releases', 'releases');
  const byDigest = new Map<string, Array<{ arch: string; version: string }>>();
  for (const r of releases) {
    const payload = String(r.payload ?? '');
    const digest = payload.slice(payload.indexOf('@') + 1);
    const list = byDigest.get(digest) ?? [];
    list.push({ arch: String(r.architecture), version: String(r.version) });
    byDigest.set(digest, list);
  }
  let refused = 0;
  let stored = 0;
  for (const s of signatures) {
    const targets = byDigest.get(s.digest);
    if (!targets) {
      refused += 1;
      process.stderr.write(
        `${escapeLine(`${s.file}: ${s.key}`)}: no release on the server has the payload ${s.digest}\n`,
      );
      continue;
    }
    for (const t of targets) {
      const path = `/api/v1/releases/${encodeURIComponent(t.arch)}/${encodeURIComponent(t.version)}/signatures`;
      try {
        const { status } = await callWithStatus(opts, 'POST', path, s.bytes, 'application/octet-stream');
        stored += 1;
        process.stdout.write(
          `${escapeLine(`${s.file}: ${s.key}`)}: ${status === 201 ? 'verified and stored' : 'stored already'} for ${t.version} (${t.arch})\n`,
        );
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        refused += 1;
        process.stderr.write(
          `${escapeLine(`${s.file}: ${s.key}`)}: refused for ${t.version} (${t.arch}): ${escapeLine(err.message)}\n`,
        );
      }
    }
  }
  process.stderr.write(`${stored} stored, ${refused} refused, ${skipped.length} skipped\n`);
  return refused ? 1 : 0;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
