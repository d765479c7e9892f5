// Lint: typescript-eslint's recommended rules over the sources, tests, benchmarks and scripts.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Node's globals that the code uses (ESLint's core rule `no-undef` knows only the language's).
const nodeGlobals = Object.fromEntries(
  [
    'process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval',
    'setImmediate', 'clearImmediate', 'AbortController', 'AbortSignal', 'TextDecoder', 'TextEncoder', 'fetch', 'performance',
    'structuredClone', 'SharedArrayBuffer', 'Atomics', 'queueMicrotask', 'Response', 'Request', 'Headers', 'MessageChannel',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.bench-work/', 'demo-kb/', '.demo-work/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: nodeGlobals },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Matching control characters is the point of the input-safety code (paths, URLs, injection checks).
      'no-control-regex': 'off',
    },
  },
  {
    // The binary is CommonJS so a search starts without the ES module loader (see bin/run.cjs); so is
    // the tests' cheap module tracer (test/helpers/trace-requires.cjs).
    files: ['bin/*.cjs', 'test/helpers/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __filename: 'readonly', __dirname: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests and benchmarks read the CLI's JSON answers loosely; their assertions check the shapes.
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
