// `cincy export`: write the store back as a graph-data tree.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { exportTree } from '../sources/export.js';
import { namesPostgres } from '../store/postgresConnection.js';
import { Store } from '../store/store.js';

export async function exportCommand(opts: { db: string; dir: string; force?: boolean }): Promise<number> {
  if (!namesPostgres(opts.db) && !existsSync(opts.db)) {
    process.stderr.write(`--db: ${opts.db} does not exist\n`);
    return 1;
  }
  if (existsSync(opts.dir) && readdirSync(opts.dir).length > 0 && !opts.force) {
    process.stderr.write(`${opts.dir}: not empty (use --force to write into it)\n`);
    return 1;
  }
  const store = await Store.open(opts.db);
  try {
    const files = exportTree(await store.storedTree());
    for (const [path, content] of files) {
      const target = join(opts.dir, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
    process.stdout.write(`exported ${files.size} files to ${opts.dir}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
