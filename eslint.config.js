// ESLint flat config: @eslint/js recommended everywhere, typescript-eslint's type-checked rules on TypeScript.
// Run with `npm run lint`. Line length is Prettier's job (no max-len rule).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'backtest/data/**', 'test/fixtures/**', 'bench/results/**'],
  },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['src/server/dashboard/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['test/**'],
    rules: { 'no-control-regex': 'off' }, // tests strip ANSI colour escapes (\x1b) on purpose
  },
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Off: each would need a mass rewrite of code other people are editing now (counts from the first run).
      '@typescript-eslint/no-unsafe-member-access': 'off', // 108: JSON.parse results in tests and wire parsers
      '@typescript-eslint/no-unsafe-argument': 'off', // 46: same cause
      '@typescript-eslint/no-unsafe-assignment': 'off', // 38: same cause
      '@typescript-eslint/no-unsafe-call': 'off', // 33: same cause
      '@typescript-eslint/no-unsafe-return': 'off', // 13: same cause
      '@typescript-eslint/no-explicit-any': 'off', // 10: deliberate `any` at parse boundaries
      '@typescript-eslint/no-unnecessary-type-assertion': 'off', // 91: harmless, left for a later sweep
      '@typescript-eslint/require-await': 'off', // 60: async kept for interface shape (Venue, handlers)
      '@typescript-eslint/unbound-method': 'off', // 30: mostly expect(obj.method) in tests
      '@typescript-eslint/no-base-to-string': 'off', // 26: String(unknown) in error messages, intended
      '@typescript-eslint/restrict-template-expressions': 'off', // 4: same as no-base-to-string
      '@typescript-eslint/no-redundant-type-constituents': 'off', // 2: documentation-style unions
      'prefer-const': 'off', // 5: forward declarations captured by closures before their one assignment
    },
  },
  {
    // The dashboard's declarations (globals.d.ts) belong to its own program: DOM types, no Node types.
    files: ['src/server/dashboard/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: './tsconfig.dashboard.json', tsconfigRootDir: import.meta.dirname },
    },
  },
);
