// The `WWW-Authenticate` challenge of a registry's 401: `Basic realm="…"` or `Bearer realm="…",service="…",scope="…"`
// (the distribution token flow: the client asks the realm for a token, then repeats the request with it).

export interface Challenge {
  scheme: 'basic' | 'bearer';
  params: Record<string, string>;
}

/** The first Basic or Bearer challenge of a header value, or undefined when there is none. */
export function parseChallenge(header: string | string[] | undefined): Challenge | undefined {
  for (const value of Array.isArray(header) ? header : header ? [header] : []) {
    const m = /^\s*(basic|bearer)\b\s*(.*)$/i.exec(value);
    if (!m) continue;
    const params: Record<string, string> = {};
    // key="quoted value" or key=token, separated by commas.
    const pair = /([a-zA-Z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
    for (let p = pair.exec(m[2]!); p; p = pair.exec(m[2]!))
      params[p[1]!.toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3]!;
    return { scheme: m[1]!.toLowerCase() as Challenge['scheme'], params };
  }
  return undefined;
}
