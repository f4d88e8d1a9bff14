// The schema of each engine: the files `NNN_name.sql` of migrations/<engine>/, applied in order, each
// in its own transaction and recorded in schema_migrations. A database recording a version this
// program has no file for was migrated by a newer cincy: it is refused, never read or written.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from './sql.js';
import { SchemaTooNew } from './sql.js';

export const MIGRATIONS_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'migrations');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations of an engine, in order. */
export function migrationsOf(engine: Engine, root = MIGRATIONS_ROOT): Migration[] {
  const dir = join(root, engine);
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ version: Number(name.slice(0, 3)), name, sql: readFileSync(join(dir, name), 'utf8') }));
}

/** What applying migrations needs of a database, engine by engine. */
export interface MigrationTarget {
  /** The versions recorded in schema_migrations (the table is made when missing). */
  applied(): Promise<number[]>;
  /** Runs one migration and records it, in one transaction. */
  apply(m: Migration, appliedAt: string): Promise<void>;
}

/** Applies the migrations not recorded yet; returns their names. Throws SchemaTooNew for a newer schema. */
export async function migrate(
  target: MigrationTarget,
  migrations: Migration[],
  now: () => Date,
  where: string,
): Promise<string[]> {
  const applied = new Set(await target.applied());
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...applied);
  if (newest > known)
    throw new SchemaTooNew(
      `the database ${where} has schema version ${newest}, newer than this cincy knows (${known}): ` +
        'it was migrated by a newer release; run that release, or a copy of the data made before',
    );
  const done: string[] = [];
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    await target.apply(m, now().toISOString());
    done.push(m.name);
  }
  return done;
}
