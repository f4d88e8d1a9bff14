// deploy/nginx/nginx.conf made to run here, for the tests and the bench: the replicas' addresses,
// nginx's own port and its temporary files replaced; nothing else of the shipped config changes. The
// types are in nginxProxy.d.mts.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const NGINX = '/usr/sbin/nginx';

/** Where this nginx keeps its temporary files, as `nginx -V` says it was built, moved into `dir`. */
function tempPathDirectives(dir) {
  const built = spawnSync(NGINX, ['-V'], { encoding: 'utf8' }).stderr;
  return [...built.matchAll(/--http-([a-z-]+)-temp-path=/g)]
    .map((m) => `${m[1].replace(/-/g, '_')}_temp_path ${join(dir, m[1])};`)
    .join(' ');
}

/**
 * `conf` with each upstream server `name:port` (the keys of `addresses`) replaced by its address here,
 * `listen 8080` by 127.0.0.1:`listen` when given, and the temporary files in `dir`.
 */
export function localNginxConfig(conf, addresses, dir, listen) {
  let out = conf;
  for (const [server, address] of Object.entries(addresses))
    out = out.replace(new RegExp(`(\\bserver\\s+)${server.replace(/[.]/g, '[.]')}\\b`, 'g'), `$1${address}`);
  if (listen) out = out.replace(/\blisten\s+8080;/, `listen 127.0.0.1:${listen};`);
  return out.replace(/^http\s*\{/m, `http {\n  ${tempPathDirectives(dir)}`);
}

/** nginx's arguments for a config file in `dir`: its prefix, error log and pid file there. */
export function nginxArgs(dir, file, extra = '') {
  return ['-c', file, '-p', `${dir}/`, '-e', join(dir, 'error.log'), '-g', `pid ${join(dir, 'nginx.pid')};${extra}`];
}
