// Bundles the npm packages the product loads at start whose modules are many into one file each, under
// dist/vendor/, which the product imports through package.json's "imports" (`#kubernetes-client`,
// `#typebox`…); the tests, under the `source` condition, load the packages themselves. Node reads an ES
// module file by file: @kubernetes/client-node is some 2,600 modules, which cost each command that talks to
// a cluster about a second of CPU before it does anything (bundled, about a tenth of that); TypeBox (219
// modules), jose (63) and yaml (84) cost `cincy serve` 136, 89 and 53 ms of its start (bundled: 19, 20, 22);
// js-yaml (the quick YAML reader) is bundled the same way.
// Run by `npm run build` after tsc.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Each bundle: its file under dist/vendor/, and for each package (or entry point of one) it holds, the names
 * the product imports from it. Only they are bundled: a name imported but not listed fails at load, and
 * test/unit/scripts/bundle-dependencies.test.ts checks. The entry points of one package share a bundle, so
 * that they share its state too (TypeBox's compiler reads the formats registered through its main entry).
 */
export const BUNDLES = {
  'kubernetes-client.js': { '@kubernetes/client-node': ['KubeConfig'] },
  'typebox.js': { '@sinclair/typebox': ['Type', 'FormatRegistry'], '@sinclair/typebox/compiler': ['TypeCompiler'] },
  'jose.js': {
    jose: [
      'CompactSign',
      'compactVerify',
      'createLocalJWKSet',
      'createRemoteJWKSet',
      'errors',
      'exportJWK',
      'flattenedVerify',
      'generalVerify',
      'generateKeyPair',
      'importJWK',
      'jwtVerify',
      'SignJWT',
    ],
  },
  'yaml.js': {
    yaml: [
      'isAlias',
      'isCollection',
      'isNode',
      'isPair',
      'isScalar',
      'parseAllDocuments',
      'parseDocument',
      'stringify',
      'visit',
    ],
  },
  'js-yaml.js': { 'js-yaml': ['FAILSAFE_SCHEMA', 'load', 'Type'] },
};

/** The module a bundle is made from: each package's names exported again. */
const entryOf = (packages) =>
  Object.entries(packages)
    .map(([pkg, names]) => `export { ${names.join(', ')} } from '${pkg}';`)
    .join('\n');

/**
 * The licence of each package a bundle holds code of (found from esbuild's list of the bundle's inputs), as
 * one text: the bundle ships their code, so it ships their licences beside it (FILE.licenses.txt).
 */
function licensesOf(metafile) {
  const roots = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) roots.add(m[1]);
  }
  return [...roots]
    .sort()
    .map((root) => {
      const pkg = JSON.parse(readFileSync(join(ROOT, root, 'package.json'), 'utf8'));
      const file = readdirSync(join(ROOT, root)).find((f) => /^licen[cs]e/i.test(f));
      const text = file
        ? readFileSync(join(ROOT, root, file), 'utf8').trim()
        : `License: ${pkg.license ?? 'not stated'}`;
      return `${pkg.name}@${pkg.version}\n\n${text}\n`;
    })
    .join(`\n${'-'.repeat(78)}\n\n`);
}

export async function bundleDependencies(outDir = join(ROOT, 'dist', 'vendor')) {
  for (const [file, packages] of Object.entries(BUNDLES)) {
    const result = await esbuild.build({
      stdin: { contents: entryOf(packages), resolveDir: ROOT, loader: 'js' },
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
      metafile: true,
      logLevel: 'warning',
    });
    writeFileSync(join(outDir, file.replace(/\.js$/, '.licenses.txt')), licensesOf(result.metafile));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleDependencies();
