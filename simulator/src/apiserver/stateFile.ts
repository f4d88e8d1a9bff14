// The mock cluster's state on disk, kept so that no acknowledged write is lost: a snapshot (FILE, the
// JSON {revision, objects}) and beside it a journal (FILE.journal) of the changes made since, one JSON
// line each. A change is appended before it is applied, by a write(2) the kernel keeps even when the
// process is killed; durable() resolves once an fdatasync has covered every change appended so far, and
// one fdatasync covers all the changes that arrived while the previous one ran (group commit), so the
// API server acknowledges a write only once it would survive a power loss too. When the journal grows
// past the snapshot, a new snapshot is written, fsynced and renamed over the old one, and the journal
// emptied. Both files hold Secrets: they are created, and kept, readable by their owner only (0600).
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fdatasync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { StoredObject } from './kinds.js';

/** A change as the journal records it: an object stored whole, or the key of one deleted. */
export type Change = { rv: number; put: StoredObject } | { rv: number; delete: string };

export interface SavedState {
  revision: number;
  objects: StoredObject[];
  /** The journal's changes newer than the snapshot, in order. */
  changes: Change[];
  /** Bytes of a last change cut short when the process was killed while writing it (never acknowledged), dropped. */
  droppedBytes: number;
  snapshotBytes: number;
  /** The journal's length without the dropped bytes. */
  journalBytes: number;
}

const OWNER_ONLY = 0o600;
/** The journal is folded into a new snapshot when it is larger than this and than the last snapshot. */
const COMPACT_MIN_BYTES = 8 * 1024 * 1024;

export class StateFile {
  readonly journal: string;
  private fd: number;
  private journalBytes: number;
  private snapshotBytes: number;
  private appended = 0;
  private synced = 0;
  private syncing = false;
  private waiters: Array<{ upTo: number; resolve: () => void; reject: (err: Error) => void }> = [];
  private failure: Error | undefined;
  private retryAt = 0;

  /** Opens FILE and FILE.journal (made owner-only if they were not); `saved` is what they held. */
  constructor(
    readonly file: string,
    readonly saved: SavedState = readState(file),
  ) {
    this.journal = `${file}.journal`;
    this.fd = openSync(this.journal, 'a', OWNER_ONLY);
    fchmodSync(this.fd, OWNER_ONLY);
    if (saved.droppedBytes > 0) ftruncateSync(this.fd, saved.journalBytes);
    this.journalBytes = saved.journalBytes;
    this.snapshotBytes = saved.snapshotBytes;
  }

  appendPut(rv: number, objectJson: string): void {
    this.append(`{"rv":${rv},"put":${objectJson}}\n`);
  }

  appendDelete(rv: number, key: string): void {
    this.append(`${JSON.stringify({ rv, delete: key })}\n`);
  }

  /**
   * Appends one change, whole or not at all: when the write fails (a full disk), what was written of it
   * is cut off again and the error thrown, so the caller applies nothing.
   */
  private append(line: string): void {
    if (this.failure) throw this.failure;
    const bytes = Buffer.from(line);
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done);
    } catch (err) {
      try {
        ftruncateSync(this.fd, this.journalBytes);
      } catch (cut) {
        this.fail(cut as Error);
      }
      throw err;
    }
    this.journalBytes += bytes.length;
    this.appended += 1;
  }

  /** Resolves once every change appended so far is on disk (fdatasync); rejects for good once one has failed. */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.synced >= this.appended) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ upTo: this.appended, resolve, reject });
      this.sync();
    });
  }

  private sync(): void {
    if (this.syncing || this.failure) return;
    this.syncing = true;
    const upTo = this.appended;
    fdatasync(this.fd, (err) => {
      this.syncing = false;
      if (err) return this.fail(err);
      this.markSynced(upTo);
      if (this.waiters.length > 0) this.sync();
    });
  }

  private markSynced(upTo: number): void {
    this.synced = Math.max(this.synced, upTo);
    const ready = this.waiters.filter((w) => w.upTo <= this.synced);
    this.waiters = this.waiters.filter((w) => w.upTo > this.synced);
    ready.forEach((w) => w.resolve());
  }

  /**
   * After an fdatasync failed, nothing written since the last good one can be trusted to be on disk
   * (the kernel may have dropped the pages): every waiter and every later write fails.
   */
  private fail(err: Error): void {
    this.failure ??= new Error(`${this.journal}: the state cannot be written: ${err.message}`);
    const waiting = this.waiters;
    this.waiters = [];
    waiting.forEach((w) => w.reject(this.failure!));
  }

  get failed(): Error | undefined {
    return this.failure;
  }

  /**
   * Folds the journal into a new snapshot (made by `state`) once it is larger than 8 MiB and than the
   * last snapshot, so that each byte is rewritten about once more. A snapshot that cannot be written
   * (a full disk) loses nothing, as the journal still holds every change: it is tried again once the
   * journal has doubled.
   */
  snapshotWhenDue(state: () => string): void {
    if (this.journalBytes <= Math.max(COMPACT_MIN_BYTES, this.snapshotBytes, this.retryAt)) return;
    try {
      this.snapshot(state());
      this.retryAt = 0;
    } catch {
      this.retryAt = this.journalBytes * 2;
    }
  }

  /**
   * Replaces the snapshot with `json` (the whole state, every change appended so far included) and
   * empties the journal: written to FILE.tmp, fsynced, renamed over FILE, the folder fsynced, and only
   * then the journal cut. A crash at any point leaves either the old snapshot and the whole journal, or
   * the new snapshot (and journal lines it already holds, which loading skips by revision).
   */
  snapshot(json: string): void {
    if (this.failure) throw this.failure;
    const tmp = `${this.file}.tmp`;
    try {
      const fd = openSync(tmp, 'w', OWNER_ONLY);
      try {
        fchmodSync(fd, OWNER_ONLY);
        const bytes = Buffer.from(json);
        for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.file);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
    syncFolder(dirname(this.file));
    this.snapshotBytes = Buffer.byteLength(json);
    ftruncateSync(this.fd, 0);
    this.journalBytes = 0;
    this.markSynced(this.appended); // the snapshot holds them all, on disk
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Makes a rename in `dir` durable; where a folder cannot be opened (not on Linux), the rename stands as it is. */
function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Reads FILE and FILE.journal (both may be missing); a file that is not what it should be is an error naming it. */
export function readState(file: string): SavedState {
  let revision = 0;
  let objects: StoredObject[] = [];
  let snapshotBytes = 0;
  if (existsSync(file)) {
    chmodSync(file, OWNER_ONLY);
    let saved: unknown;
    try {
      const bytes = readFileSync(file);
      snapshotBytes = bytes.length;
      saved = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw new Error(`${file}: not a mock cluster state file: ${(err as Error).message}`);
    }
    const s = saved as { revision?: unknown; objects?: unknown };
    if (!Number.isInteger(s?.revision) || !Array.isArray(s.objects))
      throw new Error(`${file}: not a mock cluster state file: expected {"revision": N, "objects": [...]}`);
    revision = s.revision as number;
    objects = s.objects as StoredObject[];
  }
  const journal = `${file}.journal`;
  const changes: Change[] = [];
  let droppedBytes = 0;
  let journalBytes = 0;
  if (existsSync(journal)) {
    chmodSync(journal, OWNER_ONLY);
    const bytes = readFileSync(journal);
    journalBytes = bytes.lastIndexOf(0x0a) + 1;
    droppedBytes = bytes.length - journalBytes;
    bytes
      .subarray(0, journalBytes)
      .toString('utf8')
      .split('\n')
      .slice(0, -1)
      .forEach((line, i) => {
        let change: Change;
        try {
          change = JSON.parse(line) as Change;
        } catch (err) {
          throw new Error(`${journal}: line ${i + 1} is not a change: ${(err as Error).message}`);
        }
        const put = (change as { put?: StoredObject }).put;
        const whole =
          typeof put?.metadata?.name === 'string' || typeof (change as { delete?: unknown }).delete === 'string';
        if (!Number.isInteger(change?.rv) || !whole)
          throw new Error(
            `${journal}: line ${i + 1} is not a change: expected {"rv": N, "put": {...}} or {"rv": N, "delete": KEY}`,
          );
        if (change.rv > revision) changes.push(change);
      });
  }
  return { revision, objects, changes, droppedBytes, snapshotBytes, journalBytes };
}
