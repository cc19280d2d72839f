import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { resultsMiddleware, resultsDir } from './scripts/serve.mjs';

// `base: './'` keeps asset URLs relative, so the built app works under any path.
// In `npm run dev`, /results is served from RESULTS_DIR (default ../results) as `npm run serve` does.
export default defineConfig({
  base: './',
  plugins: [
    react(),
    {
      name: 'tandem-results',
      configureServer(server) {
        server.middlewares.use(resultsMiddleware(resultsDir()));
      },
    },
  ],
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
  build: { outDir: 'dist', chunkSizeWarningLimit: 1024 },
  test: {
    include: ['tests/**/*.test.ts'],
    environment: 'node',
    pool: 'threads',
    poolOptions: { threads: { singleThread: true } },
  },
});
