// `serve`'s flags, once resolved and validated (config.ts: flags over CINCY_* variables over defaults),
// turned into the typed settings of each start-up step: files read (the trust keys, the TLS pair, the
// registry credentials and CA), names parsed, durations made milliseconds. This is the last place that
// knows a flag's name: every problem found here is a FlagProblem naming its flag, and nothing below sees one.
import type { StartOptions } from '../../app/start/service.js';
import type { AuthConfig } from '../../app/auth/tokenVerifier.js';
import { isIP } from 'node:net';
import { parseDuration, parseSingleUnitDuration } from '../../duration.js';
import { certificateProblem } from '../../certificateProblem.js';
import { loadTls, TlsError, type TlsFiles, type TlsMaterial } from '../../server/tls.js';
import { sizeInBytes, type ServeConfig } from '../../config.js';
import type { HttpLimits } from '../../settings.js';
import { FlagProblem } from '../flagProblem.js';
import type { LogFormat } from '../logFormat.js';
import { sourceSettings } from '../registryFlags.js';
import { trustKeys } from '../trustKeys.js';

export interface ServeSettings {
  log: { level: string; format: LogFormat };
  /** What the service is made of (app/start/service.ts), but for the log, the clock and the tree's read. */
  service: Omit<StartOptions, 'log' | 'clock' | 'treeRead'>;
  server: {
    host: string;
    port: number;
    tls?: { files: TlsFiles; material: TlsMaterial };
    cacheMaxAge: number;
    limits: HttpLimits;
    accessLog: boolean;
    auth: AuthConfig;
    planRateLimit: number;
    trustProxy?: string[];
  };
  /** The jobs that run after the first graph: the sources read again, feeders applied. */
  jobs: { scrapeIntervalMs: number; autoPromoteIntervalMs?: number };
  /** Said once the log is set up: settings that work, but not as their user may think. */
  warnings: string[];
}

export async function serveSettings(config: ServeConfig): Promise<ServeSettings> {
  const trust = await trustKeys(config.trustKeys);
  const tls = tlsSettings(config);
  const warnings =
    config.requireSignatures && trust.size === 0
      ? ['--require-signatures without --trust-keys: no release can be verified, the graph will be empty']
      : [];
  const certificate = tls && certificateProblem(tls.material, Date.now());
  if (certificate) warnings.push(`--tls-cert: ${certificate}`);
  return {
    log: { level: config.logLevel, format: config.logFormat as LogFormat },
    service: serviceSettings(config, trust),
    server: {
      host: config.host,
      port: config.port,
      ...(tls && { tls }),
      cacheMaxAge: config.cacheMaxAge,
      limits: config,
      accessLog: config.accessLog,
      planRateLimit: config.planRateLimit,
      ...(config.trustProxy !== undefined && { trustProxy: trustedProxies(config.trustProxy) }),
      ...(config.corsOrigins && { corsOrigins: corsOrigins(config.corsOrigins) }),
      auth: {
        secretFile: config.adminJwtSecretFile,
        jwks: config.adminJwks,
        issuer: config.adminIssuer,
        audience: config.adminAudience,
        rateLimit: config.adminRateLimit,
      },
    },
    jobs: {
      scrapeIntervalMs: parseDuration(config.scrapeInterval)!,
      ...(config.autoPromote && { autoPromoteIntervalMs: config.autoPromoteInterval * 1000 }),
    },
    warnings,
  };
}

function serviceSettings(config: ServeConfig, trust: ServeSettings['service']['trust']): ServeSettings['service'] {
  if (config.dbMaxSize && /^postgres(ql)?:/i.test(config.db))
    throw new FlagProblem('--db-max-size bounds a SQLite store; PostgreSQL is bounded by its own disk and quotas');
  const ms = (value: string): number => parseSingleUnitDuration(value)!;
  return {
    db: config.db,
    poolSize: config.dbPoolSize,
    ...(config.dbMaxSize && { maxBytes: sizeInBytes(config.dbMaxSize) }),
    graphData: config.graphData,
    demo: config.demo,
    sources: sourceSettings(config),
    // Listening (and /livez) comes before a long first scrape; /readyz answers 503 until it is done.
    deferSources: true,
    trust,
    requireSignatures: config.requireSignatures,
    fleet: {
      record: !config.noFleet,
      hashIds: config.fleetHashIds,
      maxClusters: config.fleetMaxClusters,
      retentionMs: ms(config.fleetRetention),
      flushIntervalMs: ms(config.fleetFlushInterval),
    },
    historyRetentionMs: ms(config.historyRetention),
    publicUrl: (
      config.publicUrl ?? `${config.tlsCert ? 'https' : 'http'}://${hostPart(config.host)}:${config.port}`
    ).replace(/\/+$/, ''),
    webhooks: {
      timeoutMs: ms(config.webhookTimeout),
      concurrency: config.webhookConcurrency,
      allowLoopback: config.webhookAllowLoopback,
    },
  };
}

/** The host as a URL names it: an IPv6 address in brackets, any address of 0.0.0.0 or :: as localhost. */
function hostPart(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** The origins of --cors-origins, each as a browser sends it (one that never could is refused). */
function corsOrigins(list: string): string[] {
  return list.split(',').map((origin) => {
    let normal: string | undefined;
    try {
      normal = new URL(origin).origin;
    } catch {
      normal = undefined;
    }
    if (normal !== origin)
      throw new FlagProblem(
        `--cors-origins: '${origin.slice(0, 100)}' is not an origin as a browser sends it${normal ? ` (it sends '${normal}')` : ''}`,
      );
    return origin;
  });
}

/** The TLS pair, read and checked now; none without the two flags. */
function tlsSettings(config: ServeConfig): ServeSettings['server']['tls'] {
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey))
    throw new FlagProblem('--tls-cert and --tls-key go together: give both, or neither for plain HTTP');
  if (!config.tlsCert || !config.tlsKey) return undefined;
  const files = { cert: config.tlsCert, key: config.tlsKey };
  try {
    return { files, material: loadTls(files) };
  } catch (err) {
    if (!(err instanceof TlsError)) throw err;
    throw new FlagProblem(`${err.which === 'cert' ? '--tls-cert' : '--tls-key'}: ${err.message}`);
  }
}

/** --trust-proxy: addresses and CIDRs; anything else (a number of hops too) refused, naming it. */
function trustedProxies(value: string): string[] {
  const list = value.split(',').map((p) => p.trim());
  for (const p of list) {
    const [address, prefix, more] = p.split('/');
    const family = isIP(address ?? '');
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (!family || !prefixOk || more !== undefined)
      throw new FlagProblem(
        `--trust-proxy: '${p.slice(0, 60)}' is not an address or a CIDR (the proxies' own addresses: a number of hops would believe any client)`,
      );
  }
  return list;
}
