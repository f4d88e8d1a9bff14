// Verified release signatures by payload digest, numbered from 1; insert-only.
import { createHash } from 'node:crypto';
import type { Db } from './open.js';

export interface StoredSignature {
  digest: string;
  n: number;
  envelope: 'jws' | 'openpgp';
  keyId: string;
  bytes: Buffer;
  verifiedAt: string;
  sha256: string; // of the bytes
}

interface Row {
  digest: string;
  n: number;
  envelope: 'jws' | 'openpgp';
  key_id: string;
  bytes: Buffer;
  verified_at: string;
  sha256: string;
}
const fromRow = (r: Row): StoredSignature => ({
  digest: r.digest,
  n: r.n,
  envelope: r.envelope,
  keyId: r.key_id,
  bytes: r.bytes,
  verifiedAt: r.verified_at,
  sha256: r.sha256,
});

export class SignatureRepository {
  constructor(private readonly db: Db) {}

  list(digest: string): StoredSignature[] {
    return (this.db.prepare('SELECT * FROM signatures WHERE digest = ? ORDER BY n').all(digest) as Row[]).map(fromRow);
  }

  get(digest: string, n: number): StoredSignature | undefined {
    const row = this.db.prepare('SELECT * FROM signatures WHERE digest = ? AND n = ?').get(digest, n) as
      Row | undefined;
    return row && fromRow(row);
  }

  all(): StoredSignature[] {
    return (this.db.prepare('SELECT * FROM signatures ORDER BY digest, n').all() as Row[]).map(fromRow);
  }

  /** Every signature without its bytes, by digest then number. */
  summaries(): Array<Omit<StoredSignature, 'bytes'>> {
    const rows = this.db
      .prepare('SELECT digest, n, envelope, key_id, verified_at, sha256 FROM signatures ORDER BY digest, n')
      .all() as Array<Omit<Row, 'bytes'>>;
    return rows.map((r) => ({
      digest: r.digest,
      n: r.n,
      envelope: r.envelope,
      keyId: r.key_id,
      verifiedAt: r.verified_at,
      sha256: r.sha256,
    }));
  }

  /** Adds a signature under the next number; the same bytes again return the stored one with `added: false`. */
  add(s: Omit<StoredSignature, 'n' | 'sha256'>): { signature: StoredSignature; added: boolean } {
    const sha256 = createHash('sha256').update(s.bytes).digest('hex');
    const same = this.db.prepare('SELECT * FROM signatures WHERE digest = ? AND sha256 = ?').get(s.digest, sha256) as
      Row | undefined;
    if (same) return { signature: fromRow(same), added: false };
    const n = (
      this.db.prepare('SELECT coalesce(max(n), 0) + 1 AS n FROM signatures WHERE digest = ?').get(s.digest) as {
        n: number;
      }
    ).n;
    this.db
      .prepare(
        'INSERT INTO signatures (digest, n, envelope, key_id, bytes, sha256, verified_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(s.digest, n, s.envelope, s.keyId, s.bytes, sha256, s.verifiedAt);
    return { signature: { ...s, n, sha256 }, added: true };
  }
}
