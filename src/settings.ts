// The settings of `cincy serve` as the command line shows them: each one's flag, environment variable
// (CINCY_*), description and default. What a value must be, and how flags, environment and defaults
// resolve, is config.ts's; this file loads no library, so that `cincy --help` stays quick.
import { BUNDLED_GRAPH_DATA } from './bundled.js';

export { BUNDLED_GRAPH_DATA };

/** The store `serve --demo` uses when --db is not given: the demo never shares real data's store. */
export const DEMO_DB = './data/demo.db';

export interface Setting {
  flag: string;
  env: string;
  /** A switch is given alone (--access-log); a value follows its flag (--port 8080). */
  kind: 'switch' | 'value';
  description: string;
  default?: string | number | boolean;
}

/**
 * What bounds the HTTP server's connections: seconds, and counts for the three maxima (see
 * docs/reference/settings.md).
 */
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

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const S = (flag: string, kind: Setting['kind'], description: string, def?: string | number | boolean): Setting => ({
  flag,
  env: `CINCY_${flag.slice(2).toUpperCase().replace(/-/g, '_')}`,
  kind,
  description,
  ...(def !== undefined && { default: def }),
});

export const SETTINGS = {
  graphData: S('--graph-data', 'value', 'graph-data directory or .tar.gz to import at start'),
  demo: S(
    '--demo',
    'switch',
    'serve the bundled demo graph-data (invented releases) from a store of its own (--db defaults to ./data/demo.db); no other source with it. Implied by --db :memory: with no source (CINCY_DEMO=false serves that store empty)',
    false,
  ),
  releases: S(
    '--releases',
    'value',
    'registry repository of release images to scrape: [http://]HOST[:PORT]/REPOSITORY (http:// means plain HTTP)',
  ),
  releasesTagFilter: S('--releases-tag-filter', 'value', 'RE2 pattern: only tags it matches are read from --releases'),
  graphDataImage: S(
    '--graph-data-image',
    'value',
    'graph-data container image: [http://]HOST[:PORT]/REPOSITORY:TAG or @sha256:DIGEST (re-read when its tag moves)',
  ),
  registryCredentials: S(
    '--registry-credentials',
    'value',
    'docker/podman config.json with registry credentials (auths)',
  ),
  registryCa: S('--registry-ca', 'value', 'PEM CA bundle the registry certificates are checked against'),
  scrapeInterval: S('--scrape-interval', 'value', 'how often the registry sources are read again: 30s, 5m, 1h', '5m'),
  registryConcurrency: S(
    '--registry-concurrency',
    'value',
    'registry requests for manifests and blobs in flight at once',
    16,
  ),
  registryTimeout: S(
    '--registry-timeout',
    'value',
    'seconds a registry request may wait for an answer, or between two chunks of one',
    30,
  ),
  registryRequestDeadline: S(
    '--registry-request-deadline',
    'value',
    'seconds one registry request may take in all, from sending it to the last byte of its answer',
    300,
  ),
  registryScrapeDeadline: S(
    '--registry-scrape-deadline',
    'value',
    'seconds one read of a registry source (a whole scrape) may take; past it the read fails and the last graph keeps serving',
    1800,
  ),
  registryMaxTags: S(
    '--registry-max-tags',
    'value',
    'tags a release repository may list; more fail the scrape (the last graph keeps serving)',
    100_000,
  ),
  registryAllowHosts: S(
    '--registry-allow-hosts',
    'value',
    "comma-separated HOST or HOST:PORT besides the registry's that redirects may lead to (blob storage) and token realms may get the credentials",
  ),
  db: S('--db', 'value', 'SQLite database file, :memory:, or a postgres://user@host:port/db URL', './data/cincy.db'),
  dbMaxSize: S(
    '--db-max-size',
    'value',
    'the size a SQLite store may grow to: BYTES, or with KiB, MiB, GiB (past it, writes answer 507 as on a full disk; reads go on)',
  ),
  dbPoolSize: S('--db-pool-size', 'value', 'connections each replica keeps to PostgreSQL, at most', 10),
  host: S('--host', 'value', 'address to listen on', '127.0.0.1'),
  tlsCert: S(
    '--tls-cert',
    'value',
    'PEM certificate (with its chain) to serve HTTPS with; with --tls-key; new files are taken without a restart',
  ),
  tlsKey: S('--tls-key', 'value', 'PEM private key of --tls-cert'),
  port: S('--port', 'value', 'port to listen on', 8080),
  logLevel: S('--log-level', 'value', `log level: ${LOG_LEVELS.join(', ')}`, 'info'),
  logFormat: S(
    '--log-format',
    'value',
    'auto (text on a terminal, JSON lines otherwise), json, or text: time, level, message, key=value',
    'auto',
  ),
  cacheMaxAge: S('--cache-max-age', 'value', 'Cache-Control max-age of graph responses, seconds', 30),
  requestTimeout: S(
    '--request-timeout',
    'value',
    'seconds a request may take to arrive whole, headers and body (then 408 and the connection is closed)',
    DEFAULT_HTTP_LIMITS.requestTimeout,
  ),
  headersTimeout: S(
    '--headers-timeout',
    'value',
    "seconds a request's headers may take to arrive, from the connection or the previous request (at most --request-timeout)",
    DEFAULT_HTTP_LIMITS.headersTimeout,
  ),
  keepAliveTimeout: S(
    '--keep-alive-timeout',
    'value',
    'seconds an idle connection is kept open for a next request',
    DEFAULT_HTTP_LIMITS.keepAliveTimeout,
  ),
  connectionTimeout: S(
    '--connection-timeout',
    'value',
    'seconds a connection with a request open may pass no byte either way (a client that stops reading) before it is closed',
    DEFAULT_HTTP_LIMITS.connectionTimeout,
  ),
  maxConnections: S(
    '--max-connections',
    'value',
    'connections open at once; one more is closed as soon as it is accepted (keep it under the open-file limit)',
    DEFAULT_HTTP_LIMITS.maxConnections,
  ),
  maxRequestsPerSocket: S(
    '--max-requests-per-socket',
    'value',
    'requests one connection may carry before the server closes it (0: no limit)',
    DEFAULT_HTTP_LIMITS.maxRequestsPerSocket,
  ),
  shutdownTimeout: S(
    '--shutdown-timeout',
    'value',
    'seconds SIGTERM or SIGINT waits for requests in flight before closing every connection',
    DEFAULT_HTTP_LIMITS.shutdownTimeout,
  ),
  publicUrl: S(
    '--public-url',
    'value',
    "this service's address as clusters and administrators reach it (a Route, a load balancer): the URL a halted rollout's risk links to. Default: http://HOST:PORT as listened on",
  ),
  corsOrigins: S(
    '--cors-origins',
    'value',
    "origins (scheme://host[:port], as browsers send them, comma-separated) whose pages may read the routes that take a token; any origin's page may read the public routes",
  ),
  accessLog: S(
    '--access-log',
    'switch',
    'log one line per request at info (without it, requests are counted in /metrics and only failures logged)',
    false,
  ),
  adminJwtSecretFile: S(
    '--admin-jwt-secret-file',
    'value',
    'file with the HS256 secret (32+ bytes) that admin tokens are signed with',
  ),
  adminJwks: S(
    '--admin-jwks',
    'value',
    'JWKS file or https URL of the public keys admin tokens are signed with (RS256, ES256, EdDSA)',
  ),
  adminIssuer: S('--admin-issuer', 'value', 'required iss of admin tokens', 'cincy'),
  adminAudience: S('--admin-audience', 'value', 'required aud of admin tokens', 'cincy-admin'),
  adminRateLimit: S('--admin-rate-limit', 'value', 'admin writes per subject per minute', 120),
  trustProxy: S(
    '--trust-proxy',
    'value',
    'the addresses or CIDRs (comma-separated) of the proxies in front, whose X-Forwarded-For names the client: the address --plan-rate-limit counts per',
  ),
  planRateLimit: S(
    '--plan-rate-limit',
    'value',
    'update paths planned per client address per minute, at least 200 (/api/v1/paths: 1 for one path, 10 for more; mirror-plan: one per source)',
    1200,
  ),
  trustKeys: S(
    '--trust-keys',
    'value',
    'folder of trusted signing keys: JWKS files (*.json) and armored OpenPGP keys (*.asc)',
  ),
  requireSignatures: S(
    '--require-signatures',
    'switch',
    'leave releases without a valid signature out of the graph',
    false,
  ),
  autoPromote: S('--auto-promote', 'switch', 'apply every channel feeder on a schedule (actor "feeder")', false),
  autoPromoteInterval: S('--auto-promote-interval', 'value', 'seconds between two feeder passes', 60),
  noFleet: S(
    '--no-fleet',
    'switch',
    "record no poll: graph requests' id, version, channel and arch are not kept (the fleet API reads what was recorded before)",
    false,
  ),
  fleetHashIds: S(
    '--fleet-hash-ids',
    'switch',
    'store a keyed hash of each cluster id instead of the id (the key is made once and kept in the store)',
    false,
  ),
  fleetMaxClusters: S(
    '--fleet-max-clusters',
    'value',
    'clusters the store keeps at most; past it, a new one takes the place of the one seen least recently',
    1_000_000,
  ),
  fleetRetention: S(
    '--fleet-retention',
    'value',
    'how long a silent cluster is kept, with the updates it was seen to take: 12h, 30d',
    '30d',
  ),
  fleetFlushInterval: S(
    '--fleet-flush-interval',
    'value',
    'how often the polls held in memory are written to the store: 1s, 5s, 1m',
    '5s',
  ),
  historyRetention: S(
    '--history-retention',
    'value',
    'how long graph history keeps the changes of the served graph: 30d, 365d',
    '90d',
  ),
  webhookTimeout: S(
    '--webhook-timeout',
    'value',
    'how long a webhook receiver has to answer a delivery: 5s, 1m',
    '10s',
  ),
  webhookConcurrency: S('--webhook-concurrency', 'value', 'webhook deliveries in flight at once, per process', 16),
  webhookAllowLoopback: S(
    '--webhook-allow-loopback',
    'switch',
    'deliver webhooks to loopback, link-local and private addresses too (refused by default)',
    false,
  ),
};

export type SettingKey = keyof typeof SETTINGS;
export type SettingFlags = Partial<Record<SettingKey, string | boolean>>;

/** A setting as given: its flag, else its environment variable; undefined when neither is. */
export const givenSetting = (
  key: SettingKey,
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
): string | boolean | undefined => flags[key] ?? env[SETTINGS[key].env];

/**
 * Whether serve serves the bundled demo: when --demo asks for it, and also, unless --demo is given as
 * false, when the store is in memory (`--db :memory:`) and no source is named, since such a store
 * holds nothing real and keeps nothing, so the demo cannot mix with real data there.
 */
export function demoWanted(flags: SettingFlags, env: NodeJS.ProcessEnv): boolean {
  const demo = givenSetting('demo', flags, env);
  if (demo === true || demo === 'true' || demo === '1') return true;
  if (demo !== undefined) return false;
  const sources = (['graphData', 'releases', 'graphDataImage'] as const).filter(
    (k) => givenSetting(k, flags, env) !== undefined,
  );
  return givenSetting('db', flags, env) === ':memory:' && sources.length === 0;
}

/** The SQLite file serve's store is, when it is one (not :memory:, not a postgres:// URL). */
export function storeFilePath(flags: SettingFlags, env: NodeJS.ProcessEnv): string | undefined {
  const given = givenSetting('db', flags, env);
  const db = given !== undefined ? String(given) : demoWanted(flags, env) ? DEMO_DB : String(SETTINGS.db.default);
  return db === ':memory:' || /^postgres(ql)?:/i.test(db) ? undefined : db;
}

/** The tree serve imports: --graph-data, else the bundled demo tree when the demo is wanted, else none. */
export function graphDataPath(flags: SettingFlags, env: NodeJS.ProcessEnv): string | undefined {
  const given = givenSetting('graphData', flags, env);
  if (given !== undefined) return String(given);
  return demoWanted(flags, env) ? BUNDLED_GRAPH_DATA : undefined;
}

/** A setting given a value it cannot take; the message names each flag and variable. */
export class ConfigError extends Error {}
