// Bundles the npm packages the product loads at start whose modules are many into one file each, under
// dist/vendor/, which the product imports through package.json's "imports" (`#kubernetes-client`); the
// tests, under the `source` condition, load the packages themselves. @kubernetes/client-node is some
// 2,600 modules: read one by one, they cost each command that talks to a cluster about a second of CPU
// before it does anything; bundled, about a tenth of that. Run by `npm run build` after tsc.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Each bundle: its file under dist/vendor/, the package, and the names the product imports from it (only
 * they are bundled: a name imported but not listed fails at load, and test/unit/scripts/bundle-dependencies.test.ts checks).
 */
export const BUNDLES = {
  'kubernetes-client.js': { pkg: '@kubernetes/client-node', names: ['KubeConfig'] },
};

export async function bundleDependencies(outDir = join(ROOT, 'dist', 'vendor')) {
  for (const [file, { pkg, names }] of Object.entries(BUNDLES))
    await esbuild.build({
      stdin: { contents: `export { ${names.join(', ')} } from '${pkg}';`, resolveDir: ROOT, loader: 'js' },
      outfile: join(outDir, file),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // The CommonJS inside (node-fetch, ws) requires Node's modules: an ES module has no require of its own.
      banner: {
        js: "import { createRequire as vendorRequire } from 'node:module';\nconst require = vendorRequire(import.meta.url);",
      },
      legalComments: 'eof',
      // Node's own punycode is deprecated, and warns when required from outside node_modules (as this bundle
      // is): the npm package of the same code is bundled instead.
      alias: { punycode: 'punycode/' },
      logLevel: 'warning',
    });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleDependencies();
