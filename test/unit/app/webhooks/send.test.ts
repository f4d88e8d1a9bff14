// The parts of webhooks that need no server of the product's: a sender (src/app/webhooks/send.ts) refusing
// loopback by address and by name, checked against a listener of the test's own. Which addresses are
// refused is in destination.test.ts.
import { describe, expect, it } from 'vitest';

describe('a sender', () => {
  it('refuses loopback by address and by name unless allowed, checking the resolved address', async () => {
    const { createServer } = await import('node:http');
    const { Sender } = await import('../../../../src/app/webhooks/send.js');
    const server = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const attempt = (url: string) => ({ url, secret: 's'.repeat(16), eventId: 'e', body: '{}', attempt: 1, now: 0 });
    const strict = new Sender({ timeoutMs: 5000, allowLoopback: false });
    const open = new Sender({ timeoutMs: 5000, allowLoopback: true });
    try {
      expect(await strict.send(attempt(`http://127.0.0.1:${port}/`))).toMatch(/loopback/);
      expect(await strict.send(attempt(`http://localhost:${port}/`))).toBe(
        'localhost resolves to a refused (special-purpose) address',
      );
      expect(await open.send(attempt(`http://localhost:${port}/`))).toBeUndefined();
    } finally {
      await strict.close();
      await open.close();
      server.close();
    }
  });

  it('sends nothing once closed, even when it never sent before (no connection made then)', async () => {
    const { createServer } = await import('node:http');
    const { Sender } = await import('../../../../src/app/webhooks/send.js');
    let connections = 0;
    const server = createServer((_req, res) => res.writeHead(204).end());
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const sender = new Sender({ timeoutMs: 5000, allowLoopback: true });
    try {
      await sender.close();
      const attempt = { url: `http://127.0.0.1:${port}/`, secret: 's'.repeat(16), eventId: 'e', body: '{}' };
      expect(await sender.send({ ...attempt, attempt: 1, now: 0 })).toMatch(/closed/);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });
});
