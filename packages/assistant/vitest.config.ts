import { workspaceTests } from '@ai-assistant/test-kit/vitest';

export default workspaceTests();
