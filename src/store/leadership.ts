// Which process runs the jobs that must run once however many replicas serve (auto-promotion, the
// registry scrape). On PostgreSQL, the replica holding a session advisory lock: its connection holds
// the lock until it ends, so when that replica dies the lock is free, and the next replica to ask takes
// it. A SQLite store is served by one process: it always leads.
import type pg from 'pg';
import { LOCK_KEYS, pgModule, postgresConfig } from './postgresConnection.js';

export interface Leadership {
  /** Whether this process leads now; asks for the lead when no one holds it. Never throws. */
  holds(): Promise<boolean>;
  /** The last answer of holds(). */
  readonly leading: boolean;
  /** Gives the lead up (on shutdown), so another replica takes it at its next ask. */
  release(): Promise<void>;
}

export const soleLeadership: Leadership = {
  holds: async () => true,
  leading: true,
  release: async () => {},
};

export class PostgresLeadership implements Leadership {
  private client: pg.Client | undefined;
  leading = false;
  /** The ask under way: jobs asking at once share it (two connections would both ask, one holding the lock unseen). */
  private asking: Promise<boolean> | undefined;

  constructor(private readonly location: string) {}

  holds(): Promise<boolean> {
    this.asking ??= this.ask().finally(() => (this.asking = undefined));
    return this.asking;
  }

  private async ask(): Promise<boolean> {
    try {
      if (!this.client) {
        const client = new (pgModule().Client)(postgresConfig(this.location, 1, 'cincy-leader'));
        // A lost connection has lost the lock with it: the next ask starts over.
        client.on('error', () => void this.drop(client));
        client.on('end', () => void this.drop(client));
        await client.connect();
        // The server drops the session of a replica whose host or network died (and so its lock) after
        // about 25 s of silence, instead of the system's two hours of TCP keepalive.
        await client.query(
          "SELECT set_config('tcp_keepalives_idle', '10', false), set_config('tcp_keepalives_interval', '5', false), " +
            "set_config('tcp_keepalives_count', '3', false)",
        );
        this.client = client;
      }
      if (this.leading) await this.client.query('SELECT 1');
      else {
        const r = await this.client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
          LOCK_KEYS.jobs,
        ]);
        this.leading = r.rows[0]?.locked === true;
      }
      return this.leading;
    } catch {
      if (this.client) await this.drop(this.client);
      return false;
    }
  }

  async release(): Promise<void> {
    if (this.client) await this.drop(this.client);
  }

  private async drop(client: pg.Client): Promise<void> {
    if (this.client !== client) return;
    this.client = undefined;
    this.leading = false;
    await client.end().catch(() => {});
  }
}
