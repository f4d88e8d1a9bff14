// Issue 12 point 16: the Dockerfile and docker-compose.yml (no Docker engine runs here, so the files
// are read, and the health check is run as the container would run it, against a real server).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { serveCli, useCleanup } from './support/cli.js';

const cleanup = useCleanup();
const ROOT = join(import.meta.dirname, '..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const lines = dockerfile.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
const indexOf = (re: RegExp): number => lines.findIndex((l) => re.test(l));

describe('Docker', () => {
  it('installs the dependencies from the lockfile before the sources are copied (a cached layer)', () => {
    const install = indexOf(/^RUN npm ci\b/);
    expect(install).toBeGreaterThan(indexOf(/^COPY package\.json package-lock\.json/));
    expect(install).toBeGreaterThan(-1);
    for (const sources of [/^COPY src /, /^COPY tsconfig/, /^COPY scripts\//])
      expect(indexOf(sources), String(sources)).toBeGreaterThan(install);
  });

  it('runs a health check that follows the configured port', async () => {
    const line = lines.find((l) => l.startsWith('HEALTHCHECK'))!;
    const command = line.slice(line.indexOf(' CMD ') + 5);
    const server = await serveCli(['--db', ':memory:'], cleanup);
    const port = new URL(server.url).port;
    const check = (env: Record<string, string>) =>
      spawnSync('sh', ['-c', command], { env: { PATH: process.env.PATH!, ...env }, timeout: 20_000 }).status;
    expect(check({ CINCY_PORT: port })).toBe(0);
    // Nothing listens on 9 (discard): the check fails rather than asking the default port.
    expect(check({ CINCY_PORT: '9' })).toBe(1);
  });

  it('compose passes the admin secret to the server as a file', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
      services: { cincy: { environment: Record<string, string>; secrets: string[] } };
      secrets: Record<string, { file: string }>;
    };
    const cincy = compose.services.cincy;
    expect(cincy.environment.CINCY_ADMIN_JWT_SECRET_FILE).toBe('/run/secrets/cincy-admin-secret');
    expect(cincy.secrets).toContain('cincy-admin-secret');
    expect(compose.secrets['cincy-admin-secret']!.file).toBe('./cincy-admin-secret');
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8').split('\n')).toContain('cincy-admin-secret');
    expect(readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n')).toContain('cincy-admin-secret');
  });
});
