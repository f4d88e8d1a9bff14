// The types of postgres.mjs.

/** The newest PostgreSQL of Debian's layout (/usr/lib/postgresql/<major>/bin), if installed. */
export function postgresBin(): string | undefined;

export interface PostgresServer {
  port: number;
  /** A database of its own: postgres://postgres@127.0.0.1:<port>/<name>. */
  createDatabase(): Promise<string>;
  /** Stops the server (a fast shutdown: what was committed is on disk). */
  stop(): Promise<void>;
  /** Starts it again, on the same folder and port. */
  start(): Promise<void>;
  /** SIGSTOP to the server and all its processes: connections stay open, nothing answers. */
  pause(): void;
  /** SIGCONT to them: everything goes on where it was. */
  resume(): void;
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/** A new database on the server at `port`: postgres://postgres@127.0.0.1:<port>/<name>, named uniquely in this process. */
export function createDatabaseOn(port: number): Promise<string>;

/** Makes a cluster with initdb in a temporary folder and starts its server on a free port. */
export function startPostgres(): Promise<PostgresServer>;
