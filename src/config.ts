// Settings of `cincy serve`: one schema, resolved flags > environment (CINCY_*) > defaults, and
// validated at start so a bad value names its flag and variable.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { parseDuration } from './clock.js';
import { schemaProblems } from './validation/problems.js';

/** The package's bundled demo tree: the default wherever the command is run from. */
export const BUNDLED_GRAPH_DATA = join(dirname(fileURLToPath(import.meta.url)), '..', 'graph-data');

export interface Setting {
  flag: string;
  env: string;
  schema: TSchema;
  description: string;
  default?: string | number | boolean;
}

/** What bounds the HTTP server's connections: seconds, and counts for the three maxima (see README, Command line). */
export const DEFAULT_HTTP_LIMITS = {
  requestTimeout: 30,
  headersTimeout: 10,
  keepAliveTimeout: 5,
  connectionTimeout: 60,
  maxConnections: 1000,
  maxRequestsPerSocket: 1000,
  shutdownTimeout: 10,
};
export type HttpLimits = typeof DEFAULT_HTTP_LIMITS;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const S = <T extends TSchema>(
  flag: string,
  schema: T,
  description: string,
  def?: string | number | boolean,
): Setting & { schema: T } => ({
  flag,
  env: `CINCY_${flag.slice(2).toUpperCase().replace(/-/g, '_')}`,
  schema,
  description,
  ...(def !== undefined && { default: def }),
});

export const SETTINGS = {
  graphData: S(
    '--graph-data',
    Type.String({ minLength: 1 }),
    'graph-data directory or .tar.gz to import at start (default: the bundled graph-data/, unless a registry source is given)',
  ),
  releases: S(
    '--releases',
    Type.String({ minLength: 1 }),
    'registry repository of release images to scrape: [http://]HOST[:PORT]/REPOSITORY (http:// means plain HTTP)',
  ),
  releasesTagFilter: S(
    '--releases-tag-filter',
    Type.String({ minLength: 1 }),
    'RE2 pattern: only tags it matches are read from --releases',
  ),
  graphDataImage: S(
    '--graph-data-image',
    Type.String({ minLength: 1 }),
    'graph-data container image: [http://]HOST[:PORT]/REPOSITORY:TAG or @sha256:DIGEST (re-read when its tag moves)',
  ),
  registryCredentials: S(
    '--registry-credentials',
    Type.String({ minLength: 1 }),
    'docker/podman config.json with registry credentials (auths)',
  ),
  registryCa: S(
    '--registry-ca',
    Type.String({ minLength: 1 }),
    'PEM CA bundle the registry certificates are checked against',
  ),
  scrapeInterval: S(
    '--scrape-interval',
    Type.String({ pattern: '^(?:\\d+h)?(?:\\d+m)?(?:\\d+s)?$', minLength: 2 }),
    'how often the registry sources are read again: 30s, 5m, 1h',
    '5m',
  ),
  registryConcurrency: S(
    '--registry-concurrency',
    Type.Integer({ minimum: 1, maximum: 256 }),
    'registry requests for manifests and blobs in flight at once',
    16,
  ),
  registryTimeout: S(
    '--registry-timeout',
    Type.Integer({ minimum: 1, maximum: 3600 }),
    'seconds a registry request may wait for an answer, or between two chunks of one',
    30,
  ),
  db: S('--db', Type.String({ minLength: 1 }), 'SQLite database file, or :memory:', './data/cincy.db'),
  host: S('--host', Type.String({ minLength: 1 }), 'address to listen on', '127.0.0.1'),
  port: S('--port', Type.Integer({ minimum: 0, maximum: 65535 }), 'port to listen on', 8080),
  logLevel: S(
    '--log-level',
    Type.Union(LOG_LEVELS.map((l) => Type.Literal(l))),
    `log level: ${LOG_LEVELS.join(', ')}`,
    'info',
  ),
  cacheMaxAge: S(
    '--cache-max-age',
    Type.Integer({ minimum: 0, maximum: 86400 }),
    'Cache-Control max-age of graph responses, seconds',
    30,
  ),
  requestTimeout: S(
    '--request-timeout',
    Type.Integer({ minimum: 1, maximum: 3600 }),
    'seconds a request may take to arrive whole, headers and body (then 408 and the connection is closed)',
    DEFAULT_HTTP_LIMITS.requestTimeout,
  ),
  headersTimeout: S(
    '--headers-timeout',
    Type.Integer({ minimum: 1, maximum: 3600 }),
    "seconds a request's headers may take to arrive, from the connection or the previous request (at most --request-timeout)",
    DEFAULT_HTTP_LIMITS.headersTimeout,
  ),
  keepAliveTimeout: S(
    '--keep-alive-timeout',
    Type.Integer({ minimum: 1, maximum: 3600 }),
    'seconds an idle connection is kept open for a next request',
    DEFAULT_HTTP_LIMITS.keepAliveTimeout,
  ),
  connectionTimeout: S(
    '--connection-timeout',
    Type.Integer({ minimum: 1, maximum: 3600 }),
    'seconds a connection with a request open may pass no byte either way (a client that stops reading) before it is closed',
    DEFAULT_HTTP_LIMITS.connectionTimeout,
  ),
  maxConnections: S(
    '--max-connections',
    Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    'connections open at once; one more is closed as soon as it is accepted (keep it under the open-file limit)',
    DEFAULT_HTTP_LIMITS.maxConnections,
  ),
  maxRequestsPerSocket: S(
    '--max-requests-per-socket',
    Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    'requests one connection may carry before the server closes it (0: no limit)',
    DEFAULT_HTTP_LIMITS.maxRequestsPerSocket,
  ),
  shutdownTimeout: S(
    '--shutdown-timeout',
    Type.Integer({ minimum: 0, maximum: 3600 }),
    'seconds SIGTERM or SIGINT waits for requests in flight before closing every connection',
    DEFAULT_HTTP_LIMITS.shutdownTimeout,
  ),
  accessLog: S(
    '--access-log',
    Type.Boolean(),
    'log one line per request at info (without it, requests are counted in /metrics and only failures logged)',
    false,
  ),
  adminJwtSecretFile: S(
    '--admin-jwt-secret-file',
    Type.String({ minLength: 1 }),
    'file with the HS256 secret (32+ bytes) that admin tokens are signed with',
  ),
  adminJwks: S(
    '--admin-jwks',
    Type.String({ minLength: 1 }),
    'JWKS file or https URL of the public keys admin tokens are signed with (RS256, ES256, EdDSA)',
  ),
  adminIssuer: S('--admin-issuer', Type.String({ minLength: 1 }), 'required iss of admin tokens', 'cincy'),
  adminAudience: S('--admin-audience', Type.String({ minLength: 1 }), 'required aud of admin tokens', 'cincy-admin'),
  adminRateLimit: S(
    '--admin-rate-limit',
    Type.Integer({ minimum: 1, maximum: 100000 }),
    'admin writes per subject per minute',
    120,
  ),
  trustKeys: S(
    '--trust-keys',
    Type.String({ minLength: 1 }),
    'folder of trusted signing keys: JWKS files (*.json) and armored OpenPGP keys (*.asc)',
  ),
  requireSignatures: S(
    '--require-signatures',
    Type.Boolean(),
    'leave releases without a valid signature out of the graph',
    false,
  ),
  autoPromote: S('--auto-promote', Type.Boolean(), 'apply every channel feeder on a schedule (actor "feeder")', false),
  autoPromoteInterval: S(
    '--auto-promote-interval',
    Type.Integer({ minimum: 1, maximum: 86400 }),
    'seconds between two feeder passes',
    60,
  ),
};

/** The resolved settings, as one schema. */
export const ServeConfigSchema = Type.Object({
  graphData: Type.Optional(SETTINGS.graphData.schema),
  releases: Type.Optional(SETTINGS.releases.schema),
  releasesTagFilter: Type.Optional(SETTINGS.releasesTagFilter.schema),
  graphDataImage: Type.Optional(SETTINGS.graphDataImage.schema),
  registryCredentials: Type.Optional(SETTINGS.registryCredentials.schema),
  registryCa: Type.Optional(SETTINGS.registryCa.schema),
  scrapeInterval: SETTINGS.scrapeInterval.schema,
  registryConcurrency: SETTINGS.registryConcurrency.schema,
  registryTimeout: SETTINGS.registryTimeout.schema,
  db: SETTINGS.db.schema,
  host: SETTINGS.host.schema,
  port: SETTINGS.port.schema,
  logLevel: Type.String(),
  cacheMaxAge: SETTINGS.cacheMaxAge.schema,
  requestTimeout: SETTINGS.requestTimeout.schema,
  headersTimeout: SETTINGS.headersTimeout.schema,
  keepAliveTimeout: SETTINGS.keepAliveTimeout.schema,
  connectionTimeout: SETTINGS.connectionTimeout.schema,
  maxConnections: SETTINGS.maxConnections.schema,
  maxRequestsPerSocket: SETTINGS.maxRequestsPerSocket.schema,
  shutdownTimeout: SETTINGS.shutdownTimeout.schema,
  accessLog: SETTINGS.accessLog.schema,
  adminJwtSecretFile: Type.Optional(SETTINGS.adminJwtSecretFile.schema),
  adminJwks: Type.Optional(SETTINGS.adminJwks.schema),
  adminIssuer: SETTINGS.adminIssuer.schema,
  adminAudience: SETTINGS.adminAudience.schema,
  adminRateLimit: SETTINGS.adminRateLimit.schema,
  trustKeys: Type.Optional(SETTINGS.trustKeys.schema),
  requireSignatures: SETTINGS.requireSignatures.schema,
  autoPromote: SETTINGS.autoPromote.schema,
  autoPromoteInterval: SETTINGS.autoPromoteInterval.schema,
});
export type ServeConfig = Static<typeof ServeConfigSchema>;
export type ServeFlags = Partial<Record<keyof ServeConfig, string | boolean>>;

export class ConfigError extends Error {}

/** Resolves each setting from its flag, else its environment variable, else its default, and validates. */
export function resolveServeConfig(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, s] of Object.entries(SETTINGS) as Array<[keyof ServeConfig, Setting]>) {
    const raw = flags[key] ?? env[s.env];
    let value: unknown = raw ?? s.default;
    if (typeof raw === 'string' && s.schema.type === 'integer') value = /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
    if (typeof raw === 'string' && s.schema.type === 'boolean')
      value = raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
    if (value === undefined) continue;
    for (const p of schemaProblems(s.schema, value, 'configuration'))
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
  if (problems.length) throw new ConfigError(problems.join('\n'));
  // The bundled demo tree is the default only when no registry source replaces it.
  if (out.graphData === undefined && out.releases === undefined && out.graphDataImage === undefined)
    out.graphData = BUNDLED_GRAPH_DATA;
  return out as ServeConfig;
}
