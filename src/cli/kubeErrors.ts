// A failed call to a cluster's API as one line a person can act on: whose credentials were refused, which
// object does not exist, which server could not be reached — instead of the client library's dump of the
// HTTP exchange (status, body and headers over several lines).
import { STATUS_CODES } from 'node:http';
import { ClusterApiError } from '../cluster/api.js';

/** What a call asked for, to name it when the cluster has no such object: `ClusterVersion "version"`. */
export interface Asked {
  kind: string;
  name: string;
}

/** Whom a command asks, in words for its messages: the server, the kind of credentials, and where they came from. */
export interface ClusterOrigin {
  server: string;
  /** `token`, `client certificate`, … */
  credential: string;
  /** `FILE (--kubeconfig)`, `KUBECONFIG (FILE)`, … */
  source: string;
}

/** A request that got no answer: a system error (ECONNREFUSED, a TLS failure…), or one of undici's (UND_ERR_…). */
const isTransportError = (err: unknown): err is Error =>
  err instanceof Error && typeof (err as { code?: unknown }).code === 'string';

/** The line for a failed API call; undefined for an error that is neither an answer nor a failed request. */
export function clientErrorLine(err: unknown, origin: ClusterOrigin, asked?: Asked): string | undefined {
  const { server } = origin;
  if (!(err instanceof ClusterApiError)) {
    if (!isTransportError(err)) return undefined;
    // No answer at all: the transport's reason, without the library's framing.
    const reason = /, reason: (.*)$/.exec(err.message)?.[1] ?? err.message;
    return `cannot reach the cluster at ${server}: ${reason.split('\n')[0]}`;
  }
  const code = err.status;
  const said = err.message.split('\n')[0] ?? '';
  const head = `${code} ${STATUS_CODES[code] ?? 'Unknown'}`;
  if (code === 401) return `${head}: the ${origin.credential} in ${origin.source} was refused by ${server}`;
  const unserved = code === 404 ? unservedResource(said) : undefined;
  if (unserved) return `${head}: ${server} does not serve ${unserved} (is its CustomResourceDefinition installed?)`;
  if (code === 404 && asked) return `${asked.kind} "${asked.name}" not found on ${server}`;
  return said ? `${head}: ${said}` : head;
}

/**
 * `machineconfigpools.machineconfiguration.openshift.io/v1` from the 404 of a resource the server does not
 * serve (its message ends with the path asked: `…/apis/<group>/<version>/<resource>`).
 */
function unservedResource(message: string): string | undefined {
  const m =
    /could not find the requested resource: \/(?:api|apis\/([^/]+))\/([^/]+)\/(?:namespaces\/[^/]+\/)?([^/]+)$/.exec(
      message,
    );
  if (!m) return undefined;
  const [, group, version, resource] = m;
  return group ? `${resource}.${group}/${version}` : `${resource}/${version}`;
}

/** Runs a call of the cluster's API; a failed call becomes an Error of one clear line, anything else is left as it is. */
export async function kubeCall<T>(origin: ClusterOrigin, call: () => Promise<T>, asked?: Asked): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const line = clientErrorLine(err, origin, asked);
    if (line === undefined) throw err;
    throw new Error(line, { cause: err });
  }
}
