// The host page's script of MCP Apps views: the ext-apps host bridge and its dependencies in one file
// the apps serve themselves (no CDN). The rest of the package is built by tsc.
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: { 'app-host': 'src/web/app-host.ts' },
  platform: 'browser',
  output: { dir: 'dist/web', format: 'iife', minify: true, cleanDir: true },
});
