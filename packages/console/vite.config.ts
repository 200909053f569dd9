import { defineConfig } from 'vite';

/**
 * The console is served by `weft server` under `/console/`: hashed assets in `dist/assets/`,
 * no inline script or style (the server's Content-Security-Policy forbids them), no data: URLs.
 */
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
