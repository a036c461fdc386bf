/**
 * Vite build of the web app: web/ → dist/web/ (index.html, silent-callback.html and content-hashed
 * files under /assets/), which the front proxy serves (proxy/Caddyfile: /assets/ immutable, SPA fallback).
 * Nothing is inlined: the CSP (`script-src 'self'`) allows only files from the app's own origin.
 *
 * Source: spec/platform-service.md § Front proxy routes; docs/architecture.md § Layout (web/).
 */
import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

const webRoot = import.meta.dirname;

export default defineConfig({
  root: webRoot,
  base: '/',
  plugins: [react()],
  build: {
    outDir: resolve(webRoot, '../dist/web'),
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    sourcemap: false,
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: { index: resolve(webRoot, 'index.html'), 'silent-callback': resolve(webRoot, 'silent-callback.html') },
    },
  },
});
