// The last import a SQLite store file records, peeked at before the store is opened (serve asks it to
// know, before it loads the rest of itself, whether the tree it is given is the one the store holds).
// Read-only and never creating the file: anything it cannot read (no file, another schema, a lock) is
// no record, and the start goes on as for a new tree.
import BetterSqlite3 from 'better-sqlite3';

export interface LastImport {
  source: string;
  fingerprint: string | null;
}

export function lastImportIn(file: string): LastImport | undefined {
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    return db.prepare('SELECT source, fingerprint FROM imports ORDER BY id DESC LIMIT 1').get() as
      LastImport | undefined;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
