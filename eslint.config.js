import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  // workspace/ is the demo's sample workspace (seeded by npm run demo), not project code.
  { ignores: ['dist/**', 'node_modules/**', 'console/dist/**', 'coverage/**', 'bench-results/**', '.tmp/**', 'workspace/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // Layers: src/http adapts HTTP to the domain; nothing outside it (and the composition root
    // that wires both) may import it. A domain error carries a code; src/http maps it to a status.
    files: ['src/**/*.ts', 'agents/**/*.ts', 'bridge/**/*.ts'],
    ignores: ['src/http/**', 'src/app.ts', 'src/main.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)http/',
              message: 'Domain code must not import src/http: throw a DomainError (src/domain/errors.ts) and take ports from src/domain.',
            },
          ],
        },
      ],
    },
  },
  {
    // The operator console runs in the browser (its types: console/tsconfig.json).
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests read JSON bodies of many shapes; `any` there is the honest type of a parsed response.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
