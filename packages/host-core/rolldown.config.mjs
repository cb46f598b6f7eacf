// host-core ships as one bundled module per entry (and shared chunks), not ~75 files: Node resolves,
// reads and compiles each file of an ES module graph on its own, and that was a fifth of importing
// host-core. Dependencies and Node's built-ins stay external; the types come from tsc (`build`, after this: the
// build starts from an empty dist/). `pnpm dev` runs tsc alone, which writes the unbundled files.
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: { index: 'src/index.ts', internal: 'src/internal.ts' },
  platform: 'node',
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  output: { dir: 'dist', format: 'esm', sourcemap: true, cleanDir: true, chunkFileNames: '[name]-[hash].js' },
});
