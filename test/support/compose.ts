// docker-compose.yml as compose reads it, and the nginx config it mounts: for the checks of the files
// (test/unit/deploy-compose.test.ts) and for running that config in front of real replicas
// (test/e2e/deploy-files.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');

export interface Service {
  image?: string;
  build?: string;
  profiles?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] | string };
}
export interface Compose {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
  volumes: Record<string, unknown>;
}

export const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as Compose;
/** The services `docker compose up` starts from the Dockerfile: the replicas. */
export const replicas = Object.entries(compose.services)
  .filter(([, s]) => s.build === '.' && !s.profiles)
  .map(([name]) => name)
  .sort();
/** CINCY_DB as compose hands it over, with ${VAR} filled in. */
export const dbUrl = (name: string) =>
  new URL(compose.services[name]!.environment!.CINCY_DB!.replace(/\$\{\w+\}/g, 'filled-in'));
export const portOf = (name: string) => Number(compose.services[name]!.environment!.CINCY_PORT ?? 8080);
export const healthcheck = (s: Service) => [s.healthcheck?.test ?? []].flat().join(' ');

export const nginxService = () => {
  const found = Object.entries(compose.services).filter(([, s]) => s.image?.startsWith('nginx:'));
  expect(found).toHaveLength(1);
  return found[0]![1];
};
/** The nginx config compose mounts as /etc/nginx/nginx.conf. */
export const nginxConfPath = () => {
  const mount = nginxService().volumes?.find((v) => v.split(':')[1] === '/etc/nginx/nginx.conf');
  expect(mount, 'a config mounted as /etc/nginx/nginx.conf').toBeDefined();
  return join(ROOT, mount!.split(':')[0]!);
};
export const nginxConf = () => readFileSync(nginxConfPath(), 'utf8');
/** The config without its comments. */
export const directives = () =>
  nginxConf()
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .join('\n');
/** Each upstream block's server lines: name → [address, parameters]. */
export function upstreams(): Map<string, Array<[string, string]>> {
  const out = new Map<string, Array<[string, string]>>();
  for (const m of directives().matchAll(/upstream\s+(\S+)\s*\{([^}]*)\}/g))
    out.set(
      m[1]!,
      [...m[2]!.matchAll(/^server\s+(\S+)([^;]*);/gm)].map((s): [string, string] => [s[1]!, s[2]!.trim()]),
    );
  return out;
}
