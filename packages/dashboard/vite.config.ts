import { defineConfig } from 'vite';

/**
 * The page is served by gridquote itself (src/http/dashboard.ts): `/` is index.html and every
 * asset is under /assets/ with a content hash in its name. Nothing is inlined (the page's
 * Content-Security-Policy allows scripts and styles from files of this origin only).
 */
export default defineConfig({
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: true,
  },
});
