// What a client needs to reach registries besides their names: the credentials of a docker/podman
// config.json and a PEM CA bundle, both read and checked when a command starts, so that a wrong file
// is found then, not at the first request. Errors name the file; the command that read it adds what
// it was given as.
import { readFileSync } from 'node:fs';
import { RegistryCredentials } from './credentials.js';

export interface RegistryAccess {
  credentials: RegistryCredentials;
  ca?: string;
}

export class RegistryAccessError extends Error {
  constructor(
    /** Which file failed: the credentials or the CA bundle. */
    readonly which: 'credentials' | 'ca',
    message: string,
  ) {
    super(message);
  }
}

/** Reads the files named (either may be left out). */
export function loadRegistryAccess(files: { credentials?: string; ca?: string }): RegistryAccess {
  let credentials = RegistryCredentials.none();
  if (files.credentials) {
    try {
      credentials = RegistryCredentials.load(files.credentials);
    } catch (err) {
      throw new RegistryAccessError('credentials', (err as Error).message);
    }
  }
  return { credentials, ...(files.ca && { ca: readCaBundle(files.ca) }) };
}

function readCaBundle(file: string): string {
  let ca: string;
  try {
    ca = readFileSync(file, 'utf8');
  } catch (err) {
    throw new RegistryAccessError('ca', `${file}: ${(err as Error).message}`);
  }
  if (!ca.includes('-----BEGIN CERTIFICATE-----'))
    throw new RegistryAccessError('ca', `${file}: no PEM certificate in the file`);
  return ca;
}
