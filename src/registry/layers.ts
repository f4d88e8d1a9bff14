// Reads the entries of an image layer (a tar, gzip-compressed or not) as it streams in, so a layer is never
// held whole in memory or written to disk; a reader can stop at the entry it wanted.
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract, type Header as TarHeader } from 'tar-stream';
import { MEDIA } from './manifest.js';

export class LayerError extends Error {
  /** True when the content is at fault, false when reading it failed (a network error, a bad digest). */
  constructor(
    message: string,
    readonly content = false,
  ) {
    super(message);
  }
}

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
 * Resolves 'stop' when the visitor stopped, 'end' when the layer was read to its end. On a stop, the rest
 * of the compressed bytes still flow through `blob` (not unpacked), so a blob that checks its digest at
 * its end has checked it when this resolves.
 */
export async function walkLayer(
  blob: Readable,
  mediaType: string,
  what: string,
  visit: (entry: LayerEntry) => Promise<Visit> | Visit,
): Promise<'stop' | 'end'> {
  if (!isTarLayer(mediaType))
    throw new LayerError(`${what}: layer media type ${mediaType} is not a tar or tar+gzip layer`, true);
  const compressed = mediaType !== MEDIA.ociLayer;
  const tar = extract();
  const gunzip = compressed ? createGunzip() : undefined;
  // pipe() does not pass errors on: a failed download or a bad digest must end the walk with its reason.
  blob.on('error', (err) => tar.destroy(err));
  gunzip?.on('error', (err) => tar.destroy(err));
  if (gunzip) blob.pipe(gunzip).pipe(tar);
  else blob.pipe(tar);
  const unpack = (): void => {
    if (gunzip) {
      blob.unpipe(gunzip);
      gunzip.destroy();
    } else blob.unpipe(tar);
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
          if (total > max) throw new LayerError(`${what}: ${path} is larger than ${max} bytes`, true);
          chunks.push(chunk as Buffer);
        }
        return Buffer.concat(chunks);
      };
      let answer: Visit;
      try {
        answer = await visit({ path, header, read });
      } catch (err) {
        // The visitor's own failure, said as it is (not as an unreadable layer).
        throw err instanceof LayerError ? err : new LayerError(`${what}: ${path}: ${(err as Error).message}`, true);
      }
      if (answer === 'stop') {
        unpack();
        await finished(blob.resume());
        return 'stop';
      }
      if (!consumed) entry.resume();
    }
  } catch (err) {
    unpack();
    blob.destroy();
    if (err instanceof LayerError) throw err;
    throw new LayerError(`${what}: not a readable tar layer: ${(err as Error).message}`);
  }
  return 'end';
}

/** Whether a layer of this media type is a tar (gzip-compressed or not) that can be walked. */
export function isTarLayer(mediaType: string): boolean {
  return GZIP.has(mediaType) || mediaType === '' || mediaType === MEDIA.ociLayer;
}
