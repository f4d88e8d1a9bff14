// nginx as the yardstick for cached throughput: it serves the very gzip bytes cincy returned, from a
// file, so the comparison is "cincy's cached path" vs "a static file server doing the least work".
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, get, waitReady } from './http.mjs';
import { start } from './procs.mjs';
import { performance } from 'node:perf_hooks';

/**
 * One worker: cincy answers from a single Node process, so one nginx worker is the fair match.
 * Everything nginx writes (pid, logs, temp files) goes to `dir`, so it needs no system paths.
 */
function config(port) {
  return `
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path tmp/body;
  proxy_temp_path tmp/proxy;
  fastcgi_temp_path tmp/fastcgi;
  uwsgi_temp_path tmp/uwsgi;
  scgi_temp_path tmp/scgi;
  sendfile on;
  tcp_nopush on;
  # Node keeps a connection for any number of requests; nginx would close it every 1000 by default.
  keepalive_requests 1000000;
  keepalive_timeout 75s;
  server {
    listen 127.0.0.1:${port};
    # The URL is the same as cincy's (/graph?channel=...); the query string is ignored.
    location = /graph {
      types { }
      default_type application/json;
      add_header Content-Encoding gzip;
      add_header Vary "Accept, Accept-Encoding";
      root www;
    }
    location = /readyz { return 200 '{"status":"ready"}'; }
  }
}
`;
}

/** Starts nginx on a free port serving `gzipBytes` at /graph; returns the process and the port. */
export async function startNginx(dir, gzipBytes) {
  mkdirSync(join(dir, 'www'), { recursive: true });
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  writeFileSync(join(dir, 'www', 'graph'), gzipBytes);
  // Workers drop root for www-data/nobody; mkdtemp makes 0700 dirs they could not read.
  for (const d of [dir, join(dir, 'www'), join(dir, 'tmp')]) chmodSync(d, 0o755);
  chmodSync(join(dir, 'www', 'graph'), 0o644);

  const port = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), config(port));
  // -e: the error log before the config is read (else nginx opens /var/log/nginx/error.log).
  const proc = start('nginx', 'nginx', [
    '-p',
    dir,
    '-c',
    join(dir, 'nginx.conf'),
    '-e',
    join(dir, 'error.log'),
    '-g',
    'daemon off;',
  ]);
  await waitReady(proc, port, performance.now(), { timeoutMs: 10_000 });
  return { proc, port };
}

/** Checks that nginx returns the same bytes with the same encoding, so the comparison is like for like. */
export async function checkSameBytes(port, path, gzipBytes) {
  const res = await get(port, path, { headers: { accept: 'application/json', 'accept-encoding': 'gzip' } });
  if (res.status !== 200) throw new Error(`nginx: GET ${path} → ${res.status}`);
  if (res.headers['content-encoding'] !== 'gzip') throw new Error(`nginx: no Content-Encoding: gzip on ${path}`);
  if (!res.body.equals(gzipBytes))
    throw new Error(`nginx: served ${res.body.length} bytes, not the ${gzipBytes.length} cincy served`);
}
