// The JWS algorithms of release signatures: what `cincy keys generate` makes keys for (an OpenPGP key
// takes RS256 for RSA and EdDSA for Ed25519) and what the verifier accepts in a JWS header.
export const SIGNING_ALGORITHMS = ['EdDSA', 'ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];
