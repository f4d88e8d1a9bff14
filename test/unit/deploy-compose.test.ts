// docker-compose.yml, read (no Docker engine runs here): two replicas on one PostgreSQL behind nginx, and
// the nginx config it mounts. test/e2e/deploy-files.test.ts renders deploy/kubernetes with the real kubectl
// and runs that nginx config with the real nginx in front of real replicas.
import { describe, expect, it } from 'vitest';
import {
  compose,
  dbUrl,
  directives,
  healthcheck,
  nginxService,
  portOf,
  replicas,
  upstreams,
} from '../support/compose.js';

describe('docker-compose.yml', () => {
  it('runs two replicas from the Dockerfile on the postgres service, once it is healthy', () => {
    expect(replicas).toEqual(['cincy-1', 'cincy-2']);
    const postgres = compose.services.postgres!;
    expect(postgres.image).toMatch(/^postgres:16\b/);
    for (const name of replicas) {
      const s = compose.services[name]!;
      const url = dbUrl(name);
      expect(url.protocol, name).toBe('postgres:');
      expect(url.hostname, name).toBe('postgres');
      expect(url.port || '5432', name).toBe('5432');
      // The role, database and password PostgreSQL is made with.
      expect(decodeURIComponent(url.username)).toBe(postgres.environment!.POSTGRES_USER);
      expect(url.pathname).toBe(`/${postgres.environment!.POSTGRES_DB}`);
      expect(s.environment!.CINCY_DB).toContain(`:${postgres.environment!.POSTGRES_PASSWORD}@`);
      expect(s.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
      expect(s.environment!.CINCY_HOST).toBe('0.0.0.0');
      expect(healthcheck(s)).toContain('/readyz');
      // Only nginx is published; the replicas are reached through it.
      expect(s.ports, name).toBeUndefined();
      expect(s.environment!.CINCY_ADMIN_JWT_SECRET_FILE).toBe('/run/secrets/cincy-admin-secret');
      expect(s.secrets).toContain('cincy-admin-secret');
    }
  });

  it('keeps PostgreSQL in a named volume with a pg_isready health check, its password out of the file', () => {
    const postgres = compose.services.postgres!;
    const [volume, target] = postgres.volumes![0]!.split(':');
    expect(target).toBe('/var/lib/postgresql/data');
    expect(Object.keys(compose.volumes)).toContain(volume);
    expect(healthcheck(postgres)).toContain('pg_isready');
    // Filled in by compose from the environment or .env, never written here.
    expect(postgres.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{\w+[^}]*\}$/);
    expect(postgres.ports).toBeUndefined();
  });

  it('keeps the single server on SQLite, out of a plain `docker compose up`', () => {
    const single = compose.services.cincy!;
    expect(single.profiles?.length).toBeGreaterThan(0);
    expect(single.environment!.CINCY_DB).toBe('/data/cincy.db');
  });

  it('puts nginx on port 8080 in front of both replicas', () => {
    const nginx = nginxService();
    expect(nginx.ports).toEqual(['8080:8080']);
    expect(Object.keys(nginx.depends_on as Record<string, unknown>).sort()).toEqual(replicas);
    const ups = upstreams();
    const passedTo = [...directives().matchAll(/proxy_pass\s+http:\/\/([^\s;/]+)/g)].map((m) => m[1]!);
    expect(passedTo.length).toBeGreaterThan(0);
    for (const name of new Set(passedTo)) {
      const servers = ups.get(name);
      expect(servers, `upstream ${name}`).toBeDefined();
      expect(servers!.map(([address]) => address).sort()).toEqual(replicas.map((r) => `${r}:${portOf(r)}`));
      // Passive health checks on each.
      for (const [, params] of servers!) expect(params).toMatch(/max_fails=\d+.*fail_timeout=\d+s/);
    }
  });

  it('configures nginx to keep connections, forward the client, retry reads only and compress nothing', () => {
    const conf = directives();
    expect(conf).toMatch(/^keepalive\s+\d+;/m);
    expect(conf).toMatch(/^proxy_http_version 1\.1;/m);
    expect(conf).toMatch(/^proxy_set_header Connection '';/m);
    for (const header of ['Host', 'X-Forwarded-For', 'X-Forwarded-Proto'])
      expect(conf).toMatch(new RegExp(`^proxy_set_header ${header} \\S+;`, 'm'));
    expect(conf).not.toMatch(/^gzip\s+on/m);
    expect(conf).not.toMatch(/^proxy_cache\s/m);
    expect(conf).not.toMatch(/non_idempotent/);
    // cincy takes a release list of up to 8 MiB.
    const size = /^client_max_body_size\s+(\d+)([km]?);/m.exec(conf);
    expect(size).not.toBeNull();
    expect(Number(size![1]) * { '': 1, k: 1024, m: 1024 * 1024 }[size![2] as '' | 'k' | 'm']).toBeGreaterThanOrEqual(
      8 * 1024 * 1024,
    );
  });
});
