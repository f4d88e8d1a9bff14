// How a command reaches a cincy server: --server (CINCY_SERVER) and, for a server whose HTTPS certificate
// comes from a CA of one's own, --certificate-authority FILE (CINCY_CERTIFICATE_AUTHORITY), as kubectl's
// flag of that name: the PEM certificates in FILE are the ones trusted for the server, instead of the
// system's. The file is read once, at the first request, and refused clearly when it holds no certificate.
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { Dispatcher } from 'undici';

export interface ServerTarget {
  server: string;
  certificateAuthority?: string;
}

/** Adds --server and --certificate-authority to a command. */
export function serverOptions(cmd: Command, description = 'cincy server'): Command {
  return cmd
    .addOption(new Option('--server <url>', description).env('CINCY_SERVER').default('http://127.0.0.1:8080'))
    .addOption(
      new Option(
        '--certificate-authority <file>',
        "PEM CA certificates the server's HTTPS certificate is checked against, instead of the system's",
      ).env('CINCY_CERTIFICATE_AUTHORITY'),
    );
}

const agents = new Map<string, Dispatcher>();

/** The dispatcher requests to `target` go through: undefined for undici's own (the system's CAs). */
export async function dispatcherFor(target: ServerTarget): Promise<Dispatcher | undefined> {
  const file = target.certificateAuthority;
  if (file === undefined || file === '') return undefined; // CINCY_CERTIFICATE_AUTHORITY= set empty: none

  let agent = agents.get(file);
  if (!agent) {
    const { Agent } = await import('undici');
    agents.set(file, (agent = new Agent({ connect: { ca: certificateAuthority(file) } })));
  }
  return agent;
}

/** The PEM text of `file`, refused naming the flag and the file unless it holds a certificate. */
function certificateAuthority(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`--certificate-authority: cannot read ${file}: ${(err as Error).message}`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`--certificate-authority: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return text;
}
