// A TCP connection to a test server that writes raw HTTP, for what fetch cannot do: send part of a
// body and stop, send it slowly, or keep a connection open. It collects what the server answers.
import { connect, type Socket } from 'node:net';
import { afterEach } from 'vitest';

export class RawConnection {
  received = '';
  closed = false;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.received += chunk;
      this.waiters.forEach((w) => w());
    });
    socket.on('error', () => {}); // a reset is a close here; tests look at what was received
    socket.on('close', () => {
      this.closed = true;
      this.waiters.forEach((w) => w());
    });
  }

  /** Connects to the host and port of `url`. */
  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes unless the server closed the connection; false once it has. */
  write(data: string | Buffer): boolean {
    if (this.closed || this.socket.destroyed) return false;
    this.socket.write(data);
    return true;
  }

  /** Resolves with what was received once `done` holds of it (or of the closed connection); rejects after `ms`. */
  until(done: (c: RawConnection) => boolean, ms: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!done(this)) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(this.received);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`not within ${ms} ms; received so far: ${JSON.stringify(this.received.slice(0, 300))}`));
      }, ms);
      this.waiters.add(check);
      check();
    });
  }

  /** Resolves with the first response (head and body, by Content-Length) once it is complete. */
  response(ms: number): Promise<{ status: number; headers: string; body: string }> {
    return this.until((c) => parseResponse(c.received) !== undefined, ms).then((r) => parseResponse(r)!);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

function parseResponse(text: string): { status: number; headers: string; body: string } | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const headers = text.slice(0, end);
  const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(headers)?.[1] ?? 0);
  const body = text.slice(end + 4, end + 4 + length);
  if (body.length < length) return undefined;
  return { status: Number(headers.split(' ')[1]), headers, body };
}

/** The head of a request: the request line, Host, and the given headers. */
export function requestHead(method: string, path: string, headers: Record<string, string | number> = {}): string {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * The raw connections of a test file, each destroyed after its test: `connect` opens one, `trickle` writes
 * to one a few bytes at a time (one write every 100 ms, until written or the server closed it).
 */
export function useRawConnections(cleanup: { add(f: () => unknown): void }): {
  connect(url: string): Promise<RawConnection>;
  trickle(c: RawConnection, data: string, bytes?: number): void;
} {
  const open: RawConnection[] = [];
  afterEach(() => open.splice(0).forEach((c) => c.destroy()));
  return {
    async connect(url) {
      const c = await RawConnection.open(url);
      open.push(c);
      return c;
    },
    trickle(c, data, bytes = 2) {
      let at = 0;
      const timer = setInterval(() => {
        if (at >= data.length || !c.write(data.slice(at, (at += bytes)))) clearInterval(timer);
      }, 100);
      cleanup.add(() => clearInterval(timer));
    },
  };
}
