import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers: src/server/ is the HTTP layer, and only the composition roots that start HTTP may
// import it; the application layer and everything below it import no HTTP code at all. The mock
// cluster (src/cluster/mock/) is a test and demo tool: only its own command starts it, and no
// production code imports it.
const SERVER_IMPORT = {
  regex: '(^|/)server/',
  message:
    'src/server/ is the HTTP layer: only src/cli/serve.ts, src/cli/openapi.ts and test/support/server.ts import it; call src/app/ instead.',
};
const HTTP_IMPORT = {
  regex: '^(fastify|fastify-plugin|@fastify/.*)$',
  message: 'fastify belongs to src/server/ only: the application layer and below import no HTTP code.',
};
const MOCK_IMPORT = {
  regex: '(^|/)cluster/mock/',
  message:
    'src/cluster/mock/ is the mock cluster, a test and demo tool: production code never imports it (only src/cli/mockCluster.ts starts it).',
};
const HTTP_COMPOSITION_ROOTS = ['src/cli/serve.ts', 'src/cli/openapi.ts'];
const MOCK_FILES = ['src/cluster/mock/**', 'src/cli/mockCluster.ts'];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'graph-data/', 'coverage/'] },
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
    ignores: ['src/server/**', ...HTTP_COMPOSITION_ROOTS, ...MOCK_FILES],
    rules: { 'no-restricted-imports': ['error', { patterns: [SERVER_IMPORT, HTTP_IMPORT, MOCK_IMPORT] }] },
  },
  {
    files: ['src/server/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [MOCK_IMPORT] }] },
  },
  {
    files: HTTP_COMPOSITION_ROOTS,
    rules: { 'no-restricted-imports': ['error', { patterns: [HTTP_IMPORT, MOCK_IMPORT] }] },
  },
  {
    files: MOCK_FILES,
    rules: { 'no-restricted-imports': ['error', { patterns: [SERVER_IMPORT, HTTP_IMPORT] }] },
  },
  {
    files: ['test/**/*.ts'],
    ignores: ['test/support/server.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SERVER_IMPORT] }] },
  },
);
