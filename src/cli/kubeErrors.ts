// A failed call to a cluster's API as one line a person can act on: whose credentials were refused, which
// object does not exist, which server could not be reached — instead of the client library's dump of the
// HTTP exchange (status, body and headers over several lines).
import { STATUS_CODES } from 'node:http';
import type * as k8s from '@kubernetes/client-node';
import { apiStatus } from '../cluster/apiError.js';
import { kubeconfigSource } from './kubeconfig.js';

/** What a call asked for, to name it when the cluster has no such object: `ClusterVersion "version"`. */
export interface Asked {
  kind: string;
  name: string;
}

/** The Status object of an answer (client-node gives it parsed, as text, or not at all). */
function statusOf(err: unknown): { message?: string } | undefined {
  const body = (err as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as { message?: string };
    } catch (e) {
      if (e instanceof SyntaxError) return undefined; // a proxy's page, say
      throw e;
    }
  }
  return typeof body === 'object' && body !== null ? (body as { message?: string }) : undefined;
}

/** The kind of credentials the current user presents. */
function credential(kc: k8s.KubeConfig): string {
  const user = kc.getCurrentUser();
  if (user?.token || user?.authProvider || user?.exec) return 'token';
  if (user?.certData || user?.certFile) return 'client certificate';
  return 'credentials (none given)';
}

/** A request that got no answer: node-fetch's FetchError, or a system error (ECONNREFUSED, a TLS failure…). */
const isTransportError = (err: unknown): err is Error =>
  err instanceof Error && (err.name === 'FetchError' || typeof (err as { code?: unknown }).code === 'string');

/** The line for a failed API call; undefined for an error that is neither an answer nor a failed request. */
export function clientErrorLine(err: unknown, kc: k8s.KubeConfig, asked?: Asked): string | undefined {
  const code = apiStatus(err);
  const server = kc.getCurrentCluster()?.server ?? 'the cluster';
  if (code === undefined) {
    if (!isTransportError(err)) return undefined;
    // No answer at all: the transport's reason, without the library's framing.
    const reason = /, reason: (.*)$/.exec(err.message)?.[1] ?? err.message;
    return `cannot reach the cluster at ${server}: ${reason.split('\n')[0]}`;
  }
  const said = (statusOf(err)?.message ?? '').split('\n')[0];
  const head = `${code} ${STATUS_CODES[code] ?? 'Unknown'}`;
  if (code === 401) return `${head}: the ${credential(kc)} in ${kubeconfigSource(kc)} was refused by ${server}`;
  if (code === 404 && asked) return `${asked.kind} "${asked.name}" not found on ${server}`;
  return said ? `${head}: ${said}` : head;
}

/** Runs a call of the cluster's API; a failed call becomes an Error of one clear line, anything else is left as it is. */
export async function kubeCall<T>(kc: k8s.KubeConfig, call: () => Promise<T>, asked?: Asked): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const line = clientErrorLine(err, kc, asked);
    if (line === undefined) throw err;
    throw new Error(line, { cause: err });
  }
}
