// Settings of `cincy serve`: one schema per setting (settings.ts has their flags, variables and
// defaults), resolved flags > environment (CINCY_*) > defaults, and validated at start so a bad value
// names its flag and variable.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Type, type Static, type TSchema } from '#typebox';
import { parseDuration } from './duration.js';
import { schemaProblems } from './validation/problems.js';
import {
  ConfigError,
  DEMO_DB,
  givenSetting,
  graphDataPath,
  demoWanted,
  LOG_LEVELS,
  SETTINGS,
  type Setting,
  type SettingKey,
} from './settings.js';

export { BUNDLED_GRAPH_DATA, ConfigError, DEFAULT_HTTP_LIMITS, SETTINGS, type HttpLimits } from './settings.js';

/** What each setting's value must be; a switch's is Boolean, and only a switch's. */
const SCHEMAS = {
  graphData: Type.String({ minLength: 1 }),
  demo: Type.Boolean(),
  releases: Type.String({ minLength: 1 }),
  releasesTagFilter: Type.String({ minLength: 1 }),
  graphDataImage: Type.String({ minLength: 1 }),
  registryCredentials: Type.String({ minLength: 1 }),
  registryCa: Type.String({ minLength: 1 }),
  scrapeInterval: Type.String({ pattern: '^(?:\\d+h)?(?:\\d+m)?(?:\\d+s)?$', minLength: 2 }),
  registryConcurrency: Type.Integer({ minimum: 1, maximum: 256 }),
  registryTimeout: Type.Integer({ minimum: 1, maximum: 3600 }),
  registryRequestDeadline: Type.Integer({ minimum: 1, maximum: 86400 }),
  registryScrapeDeadline: Type.Integer({ minimum: 1, maximum: 86400 }),
  registryMaxTags: Type.Integer({ minimum: 1, maximum: 10_000_000 }),
  registryAllowHosts: Type.String({ pattern: '^[A-Za-z0-9.:\\[\\]-]+(,[A-Za-z0-9.:\\[\\]-]+)*$' }),
  db: Type.String({ minLength: 1 }),
  dbMaxSize: Type.String({ pattern: '^[1-9][0-9]*(KiB|MiB|GiB)?$' }),
  dbPoolSize: Type.Integer({ minimum: 1, maximum: 1000 }),
  host: Type.String({ minLength: 1 }),
  corsOrigins: Type.String({
    pattern: '^https?://[A-Za-z0-9.:\\[\\]-]+(,https?://[A-Za-z0-9.:\\[\\]-]+)*$',
    maxLength: 4096,
  }),
  tlsCert: Type.String({ minLength: 1 }),
  tlsKey: Type.String({ minLength: 1 }),
  publicUrl: Type.String({ pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$', maxLength: 2048 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  logLevel: Type.Union(LOG_LEVELS.map((l) => Type.Literal(l))),
  logFormat: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('text')]),
  cacheMaxAge: Type.Integer({ minimum: 0, maximum: 86400 }),
  requestTimeout: Type.Integer({ minimum: 1, maximum: 3600 }),
  headersTimeout: Type.Integer({ minimum: 1, maximum: 3600 }),
  keepAliveTimeout: Type.Integer({ minimum: 1, maximum: 3600 }),
  connectionTimeout: Type.Integer({ minimum: 1, maximum: 3600 }),
  maxConnections: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  maxRequestsPerSocket: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  shutdownTimeout: Type.Integer({ minimum: 0, maximum: 3600 }),
  accessLog: Type.Boolean(),
  adminJwtSecretFile: Type.String({ minLength: 1 }),
  adminJwks: Type.String({ minLength: 1 }),
  adminIssuer: Type.String({ minLength: 1 }),
  adminAudience: Type.String({ minLength: 1 }),
  adminRateLimit: Type.Integer({ minimum: 1, maximum: 100000 }),
  planRateLimit: Type.Integer({ minimum: 200, maximum: 1_000_000 }),
  trustProxy: Type.String({ minLength: 1, maxLength: 4096 }),
  trustKeys: Type.String({ minLength: 1 }),
  requireSignatures: Type.Boolean(),
  autoPromote: Type.Boolean(),
  autoPromoteInterval: Type.Integer({ minimum: 1, maximum: 86400 }),
  noFleet: Type.Boolean(),
  fleetHashIds: Type.Boolean(),
  fleetMaxClusters: Type.Integer({ minimum: 1, maximum: 100_000_000 }),
  fleetRetention: Type.String({ pattern: '^[1-9][0-9]*[smhd]$', maxLength: 12 }),
  fleetFlushInterval: Type.String({ pattern: '^[1-9][0-9]*[smh]$', maxLength: 12 }),
  historyRetention: Type.String({ pattern: '^[1-9][0-9]*[smhd]$', maxLength: 12 }),
  webhookTimeout: Type.String({ pattern: '^[1-9][0-9]*[smh]$', maxLength: 12 }),
  webhookConcurrency: Type.Integer({ minimum: 1, maximum: 256 }),
  webhookAllowLoopback: Type.Boolean(),
} satisfies Record<SettingKey, TSchema>;

/** The resolved settings, as one schema. */
export const ServeConfigSchema = Type.Object({
  graphData: Type.Optional(SCHEMAS.graphData),
  demo: SCHEMAS.demo,
  releases: Type.Optional(SCHEMAS.releases),
  releasesTagFilter: Type.Optional(SCHEMAS.releasesTagFilter),
  graphDataImage: Type.Optional(SCHEMAS.graphDataImage),
  registryCredentials: Type.Optional(SCHEMAS.registryCredentials),
  registryCa: Type.Optional(SCHEMAS.registryCa),
  scrapeInterval: SCHEMAS.scrapeInterval,
  registryConcurrency: SCHEMAS.registryConcurrency,
  registryTimeout: SCHEMAS.registryTimeout,
  registryRequestDeadline: SCHEMAS.registryRequestDeadline,
  registryScrapeDeadline: SCHEMAS.registryScrapeDeadline,
  registryMaxTags: SCHEMAS.registryMaxTags,
  registryAllowHosts: Type.Optional(SCHEMAS.registryAllowHosts),
  db: SCHEMAS.db,
  dbMaxSize: Type.Optional(SCHEMAS.dbMaxSize),
  dbPoolSize: SCHEMAS.dbPoolSize,
  host: SCHEMAS.host,
  tlsCert: Type.Optional(SCHEMAS.tlsCert),
  tlsKey: Type.Optional(SCHEMAS.tlsKey),
  corsOrigins: Type.Optional(SCHEMAS.corsOrigins),
  publicUrl: Type.Optional(SCHEMAS.publicUrl),
  port: SCHEMAS.port,
  logLevel: Type.String(),
  logFormat: Type.String(),
  cacheMaxAge: SCHEMAS.cacheMaxAge,
  requestTimeout: SCHEMAS.requestTimeout,
  headersTimeout: SCHEMAS.headersTimeout,
  keepAliveTimeout: SCHEMAS.keepAliveTimeout,
  connectionTimeout: SCHEMAS.connectionTimeout,
  maxConnections: SCHEMAS.maxConnections,
  maxRequestsPerSocket: SCHEMAS.maxRequestsPerSocket,
  shutdownTimeout: SCHEMAS.shutdownTimeout,
  accessLog: SCHEMAS.accessLog,
  adminJwtSecretFile: Type.Optional(SCHEMAS.adminJwtSecretFile),
  adminJwks: Type.Optional(SCHEMAS.adminJwks),
  adminIssuer: SCHEMAS.adminIssuer,
  adminAudience: SCHEMAS.adminAudience,
  adminRateLimit: SCHEMAS.adminRateLimit,
  planRateLimit: SCHEMAS.planRateLimit,
  trustProxy: Type.Optional(SCHEMAS.trustProxy),
  trustKeys: Type.Optional(SCHEMAS.trustKeys),
  requireSignatures: SCHEMAS.requireSignatures,
  autoPromote: SCHEMAS.autoPromote,
  autoPromoteInterval: SCHEMAS.autoPromoteInterval,
  noFleet: SCHEMAS.noFleet,
  fleetHashIds: SCHEMAS.fleetHashIds,
  fleetMaxClusters: SCHEMAS.fleetMaxClusters,
  fleetRetention: SCHEMAS.fleetRetention,
  fleetFlushInterval: SCHEMAS.fleetFlushInterval,
  historyRetention: SCHEMAS.historyRetention,
  webhookTimeout: SCHEMAS.webhookTimeout,
  webhookConcurrency: SCHEMAS.webhookConcurrency,
  webhookAllowLoopback: SCHEMAS.webhookAllowLoopback,
});
export type ServeConfig = Static<typeof ServeConfigSchema>;
export type ServeFlags = Partial<Record<keyof ServeConfig, string | boolean>>;

/**
 * Why a SQLite --db cannot be used: its folder does not exist. Only the defaults' folder (./data) is
 * made; a path given by hand is taken as it is, so a mistyped one creates nothing anywhere.
 */
export function checkDbFolder(db: string, flags: ServeFlags, env: NodeJS.ProcessEnv): string | undefined {
  if (db === ':memory:' || /^postgres(ql)?:/i.test(db) || givenSetting('db', flags, env) === undefined)
    return undefined;
  const folder = dirname(resolve(db));
  return existsSync(folder)
    ? undefined
    : `${SETTINGS.db.flag} (${SETTINGS.db.env}): the folder ${folder} does not exist: create it first, or name a file in a folder that does`;
}

/** Bytes of a --db-max-size value (`4096`, `512MiB`, `2GiB`). */
export function sizeInBytes(value: string): number {
  const m = /^(\d+)(KiB|MiB|GiB)?$/.exec(value);
  if (!m) throw new ConfigError(`'${value}' is not a size: BYTES, or a number with KiB, MiB or GiB`);
  return Number(m[1]) * { '': 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }[m[2] ?? '']!;
}

/** Resolves each setting from its flag, else its environment variable, else its default, and validates. */
export function resolveServeConfig(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, s] of Object.entries(SETTINGS) as Array<[SettingKey, Setting]>) {
    const schema: TSchema = SCHEMAS[key];
    if ((schema.type === 'boolean') !== (s.kind === 'switch'))
      throw new Error(`setting ${s.flag}: a switch must have a Boolean schema, and only a switch`);
    const raw = givenSetting(key, flags, env);
    let value: unknown = raw ?? s.default;
    if (typeof raw === 'string' && schema.type === 'integer') value = /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof raw === 'string' && schema.type === 'boolean')
      value = raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
    if (value === undefined) continue;
    for (const p of schemaProblems(schema, value, 'configuration'))
      problems.push(`${s.flag} (${s.env}): ${p.message}, got '${String(value)}'`);
    out[key] = value;
  }
  const interval = typeof out.scrapeInterval === 'string' ? parseDuration(out.scrapeInterval) : undefined;
  if (interval !== undefined && interval < 1000)
    problems.push(
      `${SETTINGS.scrapeInterval.flag} (${SETTINGS.scrapeInterval.env}): at least 1s, got '${String(out.scrapeInterval)}'`,
    );
  if (typeof out.headersTimeout === 'number' && typeof out.requestTimeout === 'number')
    if (out.headersTimeout > out.requestTimeout)
      problems.push(
        `${SETTINGS.headersTimeout.flag} (${SETTINGS.headersTimeout.env}): at most ${SETTINGS.requestTimeout.flag}, ${out.requestTimeout}, got '${out.headersTimeout}'`,
      );
  if (typeof out.db === 'string' && /^postgres(ql)?:/i.test(out.db) && !URL.canParse(out.db))
    // The value is not repeated: it may hold a password.
    problems.push(`${SETTINGS.db.flag} (${SETTINGS.db.env}): not a URL (postgres://user:password@host:port/database)`);
  if (demoWanted(flags, env)) out.demo = true;
  if (out.demo === true) {
    // The demo is served alone, from a store of its own unless one is named.
    const others = (['graphData', 'releases', 'graphDataImage'] as const).filter((k) => out[k] !== undefined);
    if (others.length)
      problems.push(
        `${SETTINGS.demo.flag} (${SETTINGS.demo.env}) serves the bundled demo alone: leave out ${others.map((k) => SETTINGS[k].flag).join(', ')}`,
      );
    if (givenSetting('db', flags, env) === undefined) out.db = DEMO_DB;
    out.graphData = graphDataPath(flags, env);
  }
  if (problems.length) throw new ConfigError(problems.join('\n'));
  return out as ServeConfig;
}
