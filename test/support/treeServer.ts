// The served app on writeTree's small tree, for a file of route and plugin tests: started before the
// file's tests, stopped (and its tree removed) after them.
import { afterAll, beforeAll } from 'vitest';
import { startServer, tempDir, type TestServer } from './server.js';
import { writeTree } from './trees.js';

export interface TreeServer {
  /** The running server (set once the file's tests run). */
  readonly server: TestServer;
  /** A request to a path of the server. */
  get(path: string, headers?: Record<string, string>, method?: string): Promise<Response>;
}

export function useTreeServer(): TreeServer {
  let server: TestServer | undefined;
  let dir: { path: string; remove(): void } | undefined;
  beforeAll(async () => {
    dir = tempDir();
    writeTree(dir.path);
    server = await startServer({ graphData: dir.path });
  });
  afterAll(async () => {
    await server?.close();
    dir?.remove();
  });
  const running = (): TestServer => {
    if (!server) throw new Error('useTreeServer: the server is started before the tests of the file');
    return server;
  };
  return {
    get server() {
      return running();
    },
    get: (path, headers = {}, method = 'GET') => fetch(`${running().url}${path}`, { headers, method }),
  };
}
