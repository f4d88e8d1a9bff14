// The types of nginxProxy.mjs.

export const NGINX: string;

/**
 * `conf` with each upstream server `name:port` (the keys of `addresses`) replaced by its address here,
 * `listen 8080` by 127.0.0.1:`listen` when given, and the temporary files in `dir`.
 */
export function localNginxConfig(conf: string, addresses: Record<string, string>, dir: string, listen?: number): string;

/** nginx's arguments for a config file in `dir`: its prefix, error log and pid file there. */
export function nginxArgs(dir: string, file: string, extra?: string): string[];
