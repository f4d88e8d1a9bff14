// Verified release signatures by payload digest, numbered from 1; insert-only.
import { createHash } from 'node:crypto';
import type { Sql } from './sql.js';

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
  n: Number(r.n),
  envelope: r.envelope,
  keyId: r.key_id,
  bytes: Buffer.from(r.bytes),
  verifiedAt: r.verified_at,
  sha256: r.sha256,
});

const COLUMNS = 'digest, n, envelope, key_id, bytes, sha256, verified_at';

export class SignatureRepository {
  constructor(private readonly sql: Sql) {}

  async list(digest: string): Promise<StoredSignature[]> {
    return (await this.sql.all<Row>(`SELECT ${COLUMNS} FROM signatures WHERE digest = ? ORDER BY n`, [digest])).map(
      fromRow,
    );
  }

  async get(digest: string, n: number): Promise<StoredSignature | undefined> {
    const row = await this.sql.get<Row>(`SELECT ${COLUMNS} FROM signatures WHERE digest = ? AND n = ?`, [digest, n]);
    return row && fromRow(row);
  }

  async all(): Promise<StoredSignature[]> {
    return (await this.sql.all<Row>(`SELECT ${COLUMNS} FROM signatures ORDER BY digest, n`)).map(fromRow);
  }

  /** Every signature without its bytes, by digest then number. */
  async summaries(): Promise<Array<Omit<StoredSignature, 'bytes'>>> {
    const rows = await this.sql.all<Omit<Row, 'bytes'>>(
      'SELECT digest, n, envelope, key_id, verified_at, sha256 FROM signatures ORDER BY digest, n',
    );
    return rows.map((r) => ({
      digest: r.digest,
      n: Number(r.n),
      envelope: r.envelope,
      keyId: r.key_id,
      verifiedAt: r.verified_at,
      sha256: r.sha256,
    }));
  }

  /** Adds a signature under the next number; the same bytes again return the stored one with `added: false`. */
  async add(s: Omit<StoredSignature, 'n' | 'sha256'>): Promise<{ signature: StoredSignature; added: boolean }> {
    const sha256 = createHash('sha256').update(s.bytes).digest('hex');
    const same = await this.sql.get<Row>(`SELECT ${COLUMNS} FROM signatures WHERE digest = ? AND sha256 = ?`, [
      s.digest,
      sha256,
    ]);
    if (same) return { signature: fromRow(same), added: false };
    const next = await this.sql.get<{ n: number }>(
      'SELECT coalesce(max(n), 0) + 1 AS n FROM signatures WHERE digest = ?',
      [s.digest],
    );
    const n = Number(next!.n);
    await this.sql.run(
      'INSERT INTO signatures (digest, n, envelope, key_id, bytes, sha256, verified_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [s.digest, n, s.envelope, s.keyId, s.bytes, sha256, s.verifiedAt],
    );
    return { signature: { ...s, n, sha256 }, added: true };
  }
}
