// ESLint: typescript-eslint's recommended type-checked rules on the library (src/), the recommended
// rules on everything else. Run through `npm run lint`, which loads TypeScript 6 for the type
// information (see scripts/eslint-typescript6.cjs). Formatting is Prettier's job, not ESLint's;
// the library's size limits (files, functions, columns) and its layers (eslint.layers.js) are
// ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { layers } from './eslint.layers.js';

export default tseslint.config(
  { ignores: ['dist/', 'dist-demo/', 'dist-docs/', 'bench/results/', 'test/artifacts/', 'node_modules/'] },
  {
    files: ['**/*.{js,mjs,cjs,ts}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    // CommonJS files (.puppeteerrc.cjs, the linter's own preload) are loaded with require by design.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    // The library's own compiler options (tsconfig.build.json: noUncheckedIndexedAccess), so that each `!`
    // is checked against reads that may really miss.
    languageOptions: { parserOptions: { project: './tsconfig.build.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      // The boundary code reads native getters off property descriptors and calls them with
      // Reflect.apply on a receiver it chose (so a Proxy or an overridden getter cannot lie): taking
      // a method off its object is the point there, not a slip.
      '@typescript-eslint/unbound-method': 'off',
      // Functions that read without scrolling; a file that holds one concept, which may need up to 400 lines (a
      // cap, not a size to cut concepts to); lines that Prettier's 120 columns cannot wrap (strings, comments) held to
      // the same width.
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }],
      'max-len': ['error', { code: 120, tabWidth: 2 }],
    },
  },
  {
    // The same function and column limits on the bench, the demo and the examples (files may be longer: a
    // case list or a stylesheet is one concern).
    files: ['bench/**/*.{js,mjs,ts}', 'demo/**/*.ts', 'examples/**/*.{js,mjs,ts}'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true }],
      'max-len': ['error', { code: 120, tabWidth: 2 }],
    },
  },
  ...layers,
);
