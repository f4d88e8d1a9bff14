// The PEM CA bundle a `--registry-ca` flag names, read and checked to hold a certificate when the command
// starts, so a wrong file is named with its flag rather than found at the first TLS handshake.
import { readFileSync } from 'node:fs';

export function readCaBundle(file: string, flag = '--registry-ca'): string {
  let ca: string;
  try {
    ca = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${flag}: ${file}: ${(err as Error).message}`);
  }
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${flag}: ${file}: no PEM certificate in the file`);
  return ca;
}
