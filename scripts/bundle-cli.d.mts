// The types of bundle-cli.mjs, for the tests' build of dist/ (test/support/compile.ts) and its own test.
/** Where the command line's bundle is written: dist/bundle/. */
export declare const BUNDLE_DIR: string;
/** A compiled module's text with its `import.meta.url` that of `file`, reckoned from a chunk in `outDir`. */
export declare function keepCompiledPlace(text: string, file: string, outDir: string): string;
/** Bundles `entryPoints` (default: dist/cli/main.js and program.js), each command's code a chunk, into `outDir`. */
export declare function bundleCli(outDir?: string, entryPoints?: Record<string, string>): Promise<void>;
