// Where a signature store keeps signature N of a payload digest, relative to the store's base URL: the
// layout the cluster-version-operator reads (library-go pkg/verify/store/sigstore), N = 1… up to the first 404.
export const signatureStorePath = (digest: string, n: number): string => `${digest.replace(':', '=')}/signature-${n}`;
