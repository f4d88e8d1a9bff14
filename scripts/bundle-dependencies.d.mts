// The types of bundle-dependencies.mjs, for the tests that build the bundles and check their names.
export declare const BUNDLES: Record<string, { pkg: string; names: string[] }>;
export declare function bundleDependencies(outDir?: string): Promise<void>;
