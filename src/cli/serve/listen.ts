// The server step's last move: listening on --host and --port, with the three ways it fails on a
// healthy machine said in one line each, naming the flag to change.
/** What listens: the fastify instance of buildApp. */
interface Listener {
  listen(options: { host: string; port: number }): Promise<string>;
}

/** Listens; resolves with the problem when the address cannot be taken, undefined once listening. */
export async function listen(app: Listener, host: string, port: number): Promise<string | undefined> {
  try {
    await app.listen({ host, port });
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const where = `${host}:${port}`;
    if (code === 'EADDRINUSE')
      return `${where} is in use by another process: stop it, or give another --port (0 picks a free one)`;
    if (code === 'EACCES')
      return `${where}: not allowed to listen on port ${port} (below 1024 needs privileges): give another --port`;
    if (code === 'EADDRNOTAVAIL') return `${where}: ${host} is not an address of this machine: give another --host`;
    throw err;
  }
}
