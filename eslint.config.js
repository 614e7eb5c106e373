// ESLint: typescript-eslint's recommended type-checked rules on the library (src/), the recommended
// rules on everything else. Run through `npm run lint`, which loads TypeScript 6 for the type
// information (see scripts/lib/eslint-typescript6.cjs). Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'dist-demo/', 'bench/results/', 'test/artifacts/', 'node_modules/'] },
  {
    files: ['**/*.{js,mjs,cjs,ts}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['src/**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
);
