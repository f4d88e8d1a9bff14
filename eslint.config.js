import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers: src/server/ is the HTTP layer, and only the composition roots that start HTTP may
// import it; the application layer and everything below it import no HTTP code at all. The simulated
// cluster (simulator/, a workspace package of its own) is a test and demo tool: no product code under
// src/ imports it.
const SERVER_IMPORT = {
  regex: '(^|/)server/',
  message:
    'src/server/ is the HTTP layer: only src/cli/serve/, src/cli/openapi.ts and test/support/server.ts import it; call src/app/ instead.',
};
const HTTP_IMPORT = {
  regex: '^(fastify|fastify-plugin|@fastify/.*)$',
  message: 'fastify belongs to src/server/ only: the application layer and below import no HTTP code.',
};
const SIMULATOR_IMPORT = {
  regex: '^@cincy/simulator(/|$)|(^|/)simulator/',
  message:
    'simulator/ is the simulated cluster, a test and demo tool: the product never imports it (bin/cincy.js hands its commands over in a clone).',
};
// Packages the build bundles into dist/vendor/ (scripts/bundle-dependencies.mjs): the product imports them
// through package.json's "imports", so that the built product loads one copy, the bundle (a second TypeBox
// would have a FormatRegistry of its own, without the formats src/schemas/formats.ts registers).
const BUNDLED_IMPORT = {
  regex: '^(@sinclair/typebox|jose|yaml)(/|$)',
  message:
    "bundled for dist/ (scripts/bundle-dependencies.mjs): import from '#typebox', '#typebox/compiler', '#jose' or '#yaml'.",
};
const HTTP_COMPOSITION_ROOTS = ['src/cli/serve/**', 'src/cli/openapi.ts'];

export default tseslint.config(
  { ignores: ['dist/', 'simulator/dist/', 'node_modules/', 'graph-data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/server/**', ...HTTP_COMPOSITION_ROOTS],
    rules: {
      'no-restricted-imports': ['error', { patterns: [SERVER_IMPORT, HTTP_IMPORT, SIMULATOR_IMPORT, BUNDLED_IMPORT] }],
    },
  },
  {
    files: ['src/server/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SIMULATOR_IMPORT, BUNDLED_IMPORT] }] },
  },
  {
    files: HTTP_COMPOSITION_ROOTS,
    rules: { 'no-restricted-imports': ['error', { patterns: [HTTP_IMPORT, SIMULATOR_IMPORT, BUNDLED_IMPORT] }] },
  },
  {
    // The simulator reaches the product's layers below HTTP, never its server.
    files: ['simulator/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ ...SERVER_IMPORT, regex: '^cincy/server/' }, HTTP_IMPORT] }],
    },
  },
  {
    files: ['test/**/*.ts', 'simulator/test/**/*.ts'],
    ignores: ['test/support/server.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SERVER_IMPORT] }] },
  },
);
