import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is served by the service at /operator/ (src/http/operator-console.ts); the build
// lands in console/dist, which that route serves and git ignores.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/operator/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
});
