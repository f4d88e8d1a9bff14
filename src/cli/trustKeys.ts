// The keys of --trust-keys, read once where the flag is known: a problem with the folder or a key in
// it is told with the flag's name.
import { TrustStore } from '../signatures/verify.js';
import { underFlagAsync } from './flagProblem.js';

/** The trust store of the folder `dir`; an empty one without it. */
export async function trustKeys(dir: string | undefined): Promise<TrustStore> {
  return dir ? underFlagAsync('--trust-keys', () => TrustStore.load(dir)) : TrustStore.empty();
}
