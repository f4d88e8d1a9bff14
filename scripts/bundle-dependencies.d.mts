// The types of bundle-dependencies.mjs, for the tests that build the bundles and check their names.
/** Each bundle's file under dist/vendor/, and for each package it holds, the names bundled from it. */
export declare const BUNDLES: Record<string, Record<string, string[]>>;
export declare function bundleDependencies(outDir?: string): Promise<void>;
