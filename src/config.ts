// Settings of `cincy serve`: one schema, resolved flags > environment (CINCY_*) > defaults, and
// validated at start so a bad value names its flag and variable.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type, type Static } from '@sinclair/typebox';
import { schemaProblems } from './sources/graphData.js';

/** The package's bundled demo tree: the default wherever the command is run from. */
export const BUNDLED_GRAPH_DATA = join(dirname(fileURLToPath(import.meta.url)), '..', 'graph-data');

export const ServeConfigSchema = Type.Object({
  graphData: Type.String({ minLength: 1, description: 'graph-data directory or .tar.gz' }),
  db: Type.String({ minLength: 1, description: 'SQLite file, or :memory:' }),
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  logLevel: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  cacheMaxAge: Type.Integer({ minimum: 0, maximum: 86400 }),
});
export type ServeConfig = Static<typeof ServeConfigSchema>;

export const SERVE_DEFAULTS: ServeConfig = {
  graphData: BUNDLED_GRAPH_DATA,
  db: './data/cincy.db',
  host: '127.0.0.1',
  port: 8080,
  logLevel: 'info',
  cacheMaxAge: 30,
};

/** Flag name and environment variable of each setting, for messages and --help. */
export const SETTINGS: Record<keyof ServeConfig, { flag: string; env: string }> = {
  graphData: { flag: '--graph-data', env: 'CINCY_GRAPH_DATA' },
  db: { flag: '--db', env: 'CINCY_DB' },
  host: { flag: '--host', env: 'CINCY_HOST' },
  port: { flag: '--port', env: 'CINCY_PORT' },
  logLevel: { flag: '--log-level', env: 'CINCY_LOG_LEVEL' },
  cacheMaxAge: { flag: '--cache-max-age', env: 'CINCY_CACHE_MAX_AGE' },
};

const NUMERIC = new Set<keyof ServeConfig>(['port', 'cacheMaxAge']);

export class ConfigError extends Error {}

export function resolveServeConfig(flags: Partial<Record<keyof ServeConfig, string | undefined>>, env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(SERVE_DEFAULTS) as Array<keyof ServeConfig>) {
    const raw = flags[key] ?? env[SETTINGS[key].env];
    if (raw === undefined) out[key] = SERVE_DEFAULTS[key];
    else if (NUMERIC.has(key)) out[key] = /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
    else out[key] = raw;
  }
  const problems = schemaProblems(ServeConfigSchema, out, 'configuration');
  if (problems.length) {
    const lines = problems.map((p) => {
      const s = SETTINGS[p.field as keyof ServeConfig];
      return s ? `${s.flag} (${s.env}): ${p.message}, got '${String(out[p.field])}'` : `${p.field}: ${p.message}`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  return out as ServeConfig;
}
