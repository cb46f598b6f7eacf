import { workspaceTests } from '@ai-assistant/test-kit/vitest';

// A chat process opens the embedded store and its servers, some tests twice.
export default workspaceTests({ limitMs: 120_000 });
