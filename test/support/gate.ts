// A server's address before and after the server starts, for tests of start orders: a TCP relay on a free
// loopback port that, while shut, resets every connection at once (as a client finds a port nothing answers on
// yet) and, once opened, relays each connection to the server behind it, bytes as they are (TLS passes through).
// Shutting it again cuts the connections it relays, as a stopped server would.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Gate {
  /** The gate's port on 127.0.0.1: clients are given this one instead of the server's. */
  port: number;
  open(): void;
  shut(): void;
  close(): Promise<void>;
}

export async function startGate(target: { host: string; port: number }): Promise<Gate> {
  let open = false;
  const relayed = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (!open) return void client.resetAndDestroy();
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      relayed.add(s);
      s.on('close', () => relayed.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const shut = (): void => {
    open = false;
    for (const s of relayed) s.destroy();
  };
  return {
    port,
    open: () => void (open = true),
    shut,
    close: () => {
      shut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
