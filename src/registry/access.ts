// What a command needs to reach registries, from its flags: the credentials of `--registry-credentials`
// (a docker/podman config.json) and the PEM CA bundle of `--registry-ca`, both read and checked when the
// command starts, so a wrong file is named with its flag rather than found at the first request.
import { readFileSync } from 'node:fs';
import { RegistryCredentials } from './credentials.js';

export interface RegistryAccess {
  credentials: RegistryCredentials;
  ca?: string;
}

export function registryAccess(flags: { registryCredentials?: string; registryCa?: string }): RegistryAccess {
  let credentials = RegistryCredentials.none();
  if (flags.registryCredentials) {
    try {
      credentials = RegistryCredentials.load(flags.registryCredentials);
    } catch (err) {
      throw new Error(`--registry-credentials: ${(err as Error).message}`);
    }
  }
  return { credentials, ...(flags.registryCa && { ca: readCaBundle(flags.registryCa) }) };
}

function readCaBundle(file: string): string {
  let ca: string;
  try {
    ca = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`--registry-ca: ${file}: ${(err as Error).message}`);
  }
  if (!ca.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`--registry-ca: ${file}: no PEM certificate in the file`);
  return ca;
}
