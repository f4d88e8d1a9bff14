// The Dockerfile and docker-compose.yml, read (no Docker engine runs here). The health check, run as the
// container would run it against a real server, is in test/e2e/docker-healthcheck.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
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

  it('copies every script the product build runs before running it', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const scripts = [...pkg.scripts['build:product']!.matchAll(/node (scripts\/\S+\.mjs)/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(2);
    const copied = lines
      .find((l) => /^COPY scripts\//.test(l))!
      .split(/\s+/)
      .slice(1, -1);
    expect(scripts.filter((s) => !copied.includes(s))).toEqual([]);
    expect(indexOf(/^RUN npm run build:product/)).toBeGreaterThan(indexOf(/^COPY scripts\//));
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
