// Reads the entries of an image layer (a tar, gzip-compressed or not) as it streams in, so a layer is never
// held whole in memory or written to disk; a reader can stop at the entry it wanted.
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { extract, type Header as TarHeader } from 'tar-stream';
import { MEDIA } from './manifest.js';

export class LayerError extends Error {}

export interface LayerEntry {
  /** The path without a leading `./` or `/`. */
  path: string;
  header: TarHeader;
  /** The entry's bytes, up to `max`; past it, a LayerError naming the entry. */
  read(max: number): Promise<Buffer>;
}

/** What a visitor answers: 'stop' abandons the rest of the layer. */
export type Visit = 'next' | 'stop';

const GZIP = new Set<string>([MEDIA.ociLayerGzip, MEDIA.dockerLayerGzip]);

/**
 * Calls `visit` for each entry in order. Entries the visitor does not read are skipped without being kept.
 * Resolves 'stop' when the visitor stopped, 'end' when the layer was read to its end.
 */
export async function walkLayer(
  blob: Readable,
  mediaType: string,
  what: string,
  visit: (entry: LayerEntry) => Promise<Visit> | Visit,
): Promise<'stop' | 'end'> {
  const compressed = GZIP.has(mediaType) || mediaType === '';
  if (!compressed && mediaType !== MEDIA.ociLayer)
    throw new LayerError(`${what}: layer media type ${mediaType} is not a tar or tar+gzip layer`);
  const tar = extract();
  const source = compressed ? blob.pipe(createGunzip()) : blob;
  // pipe() does not pass errors on: a failed download or a bad digest must end the walk with its reason.
  blob.on('error', (err) => tar.destroy(err));
  source.on('error', (err) => tar.destroy(err));
  source.pipe(tar);
  const abandon = (): void => {
    blob.destroy();
    source.destroy();
    tar.destroy();
  };
  try {
    for await (const entry of tar) {
      const header = entry.header;
      const path = header.name.replace(/^(\.\/|\/)+/, '');
      let consumed = false;
      const read = async (max: number): Promise<Buffer> => {
        consumed = true;
        const chunks: Buffer[] = [];
        let total = 0;
        for await (const chunk of entry) {
          total += (chunk as Buffer).length;
          if (total > max) throw new LayerError(`${what}: ${path} is larger than ${max} bytes`);
          chunks.push(chunk as Buffer);
        }
        return Buffer.concat(chunks);
      };
      const answer = await visit({ path, header, read });
      if (answer === 'stop') {
        abandon();
        return 'stop';
      }
      if (!consumed) entry.resume();
    }
  } catch (err) {
    abandon();
    if (err instanceof LayerError) throw err;
    throw new LayerError(`${what}: not a readable tar layer: ${(err as Error).message}`);
  }
  return 'end';
}
