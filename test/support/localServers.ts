// Small HTTP servers a test stands up in its own process, on a free port of 127.0.0.1: any handler, and a
// Prometheus answering instant queries. The cleanup closes them, open connections included.
import { createServer, type RequestListener } from 'node:http';

interface Cleanup {
  add(f: () => unknown): void;
}

/** Serves `handler`; its base URL (http://127.0.0.1:PORT). */
export async function serveLocal(handler: RequestListener, cleanup: Cleanup): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/**
 * A Prometheus whose instant vector for a query is one sample per value `samplesOf` gives (one value: a
 * single sample, as a risk's query must answer); its URL and how many queries it answered.
 */
export async function prometheusStub(
  samplesOf: (query: string) => string[],
  cleanup: Cleanup,
): Promise<{ url: string; queries(): number }> {
  let queries = 0;
  const url = await serveLocal((req, res) => {
    queries += 1;
    const query = new URL(req.url!, 'http://x').searchParams.get('query') ?? '';
    const result = samplesOf(query).map((v) => ({ metric: {}, value: [1, v] }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } }));
  }, cleanup);
  return { url, queries: () => queries };
}
