// The Dockerfile's health check, run as the container would run it (no Docker engine runs here), against
// a real `cincy serve`. test/unit/docker-files.test.ts reads the rest of the Dockerfile and docker-compose.yml.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveCli, useCleanup } from '../support/cli.js';

const cleanup = useCleanup();
const ROOT = join(import.meta.dirname, '..', '..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const lines = dockerfile.split('\n').filter((l) => l.trim() && !l.startsWith('#'));

describe('Docker', () => {
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
});
