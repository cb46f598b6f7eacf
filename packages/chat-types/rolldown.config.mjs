// One bundled module, like host-core's; the types come from tsc (`build`, after this: the build starts
// from an empty dist/).
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: { index: 'src/index.ts' },
  platform: 'node',
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  output: { dir: 'dist', format: 'esm', sourcemap: true, cleanDir: true },
});
