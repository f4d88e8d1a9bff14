// Reads the entries of an image layer (a tar, gzip-compressed or not) as it streams in, so a layer is never
// held whole in memory or written to disk; a reader can stop at the entry it wanted. A layer is bounded in
// what it unpacks to and in entries, so a small compressed layer cannot cost gigabytes of CPU work.
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Header as TarHeader } from 'tar-stream';
import { RegistryError } from './client.js';
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

/** The bytes a layer may unpack to (its tar stream), by default: release and graph-data layers are far smaller. */
export const MAX_LAYER_UNPACKED_BYTES = 1024 * 1024 * 1024;
/** The entries a layer may hold, by default (a UBI base layer holds about 20,000). */
export const MAX_LAYER_ENTRIES = 1_000_000;

export interface LayerLimits {
  maxUnpackedBytes?: number;
  maxEntries?: number;
}

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
  limits: LayerLimits = {},
): Promise<'stop' | 'end'> {
  if (!isTarLayer(mediaType))
    throw new LayerError(`${what}: layer media type ${mediaType} is not a tar or tar+gzip layer`, true);
  const maxEntries = limits.maxEntries ?? MAX_LAYER_ENTRIES;
  const compressed = mediaType !== MEDIA.ociLayer;
  // Loaded at the first layer read: a start with registry sources reads none before it listens.
  const { extract } = await import('tar-stream');
  const tar = extract();
  const gunzip = compressed ? createGunzip() : undefined;
  const counted = new UnpackedBytes(limits.maxUnpackedBytes ?? MAX_LAYER_UNPACKED_BYTES, what);
  // pipe() does not pass errors on: a failed download or a bad digest must end the walk with its reason.
  blob.on('error', (err) => tar.destroy(err));
  gunzip?.on('error', (err) => tar.destroy(err));
  counted.on('error', (err) => tar.destroy(err));
  (gunzip ? blob.pipe(gunzip) : blob).pipe(counted).pipe(tar);
  const unpack = (): void => {
    if (gunzip) {
      blob.unpipe(gunzip);
      gunzip.destroy();
    } else blob.unpipe(counted);
    counted.destroy();
    tar.destroy();
  };
  let entries = 0;
  try {
    for await (const entry of tar) {
      if (++entries > maxEntries) throw new LayerError(`${what}: more than ${maxEntries} entries`, true);
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
    // The layer's own fault, or the registry's (a deadline, a digest that does not match): said as it is.
    if (err instanceof LayerError || err instanceof RegistryError) throw err;
    throw new LayerError(`${what}: not a readable tar layer: ${(err as Error).message}`);
  }
  return 'end';
}

/** Passes the unpacked bytes on, failing past `max` (a content fault: the layer is what it is). */
class UnpackedBytes extends Transform {
  private total = 0;
  constructor(
    private readonly max: number,
    private readonly what: string,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.total += chunk.length;
    if (this.total > this.max) done(new LayerError(`${this.what}: unpacks to more than ${this.max} bytes`, true));
    else done(null, chunk);
  }
}

/** Whether a layer of this media type is a tar (gzip-compressed or not) that can be walked. */
export function isTarLayer(mediaType: string): boolean {
  return GZIP.has(mediaType) || mediaType === '' || mediaType === MEDIA.ociLayer;
}
