// Reading a whole response body with a ceiling: the registry client and the agent's graph fetch both
// refuse an answer as soon as it passes its limit, instead of buffering whatever a server sends.
import type { Readable } from 'node:stream';

/** The body's bytes; past `max`, the body is destroyed and `tooLarge()` is thrown. */
export async function readBounded(body: Readable, max: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > max) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
