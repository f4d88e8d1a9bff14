// A JWS of a payload with a JWK file, as `cincy keys sign` makes one (src/cli/signing.ts), as text.
import { signWithKeyFile } from '../../src/cli/signing.js';

export async function signPayload(keyFile: string, payload: string, now?: Date): Promise<string> {
  const signed = await signWithKeyFile(keyFile, payload, now);
  if (signed.binary) throw new Error(`${keyFile}: an OpenPGP key signs binary messages, not a JWS`);
  return new TextDecoder().decode(signed.bytes);
}
