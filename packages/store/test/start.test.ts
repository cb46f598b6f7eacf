import { freePort } from '@ai-assistant/test-kit';
import { expect, it } from 'vitest';
import { newKey, openStoreFromEnvironment, StoreStartError } from '../src/index.js';

it('an unreachable DATABASE_URL is a start-up error that says so, without the password', async () => {
  const port = await freePort(); // nothing listens there
  const failure = await openStoreFromEnvironment({
    DATABASE_URL: `postgres://app:hunter2-secret-pw@127.0.0.1:${port}/assistant`,
    ASSISTANT_ENCRYPTION_KEY: newKey(),
  }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(StoreStartError);
  expect((failure as Error).message).toMatch(
    /^store: cannot reach the database to migrate it: .*ECONNREFUSED/,
  );
  expect((failure as Error).message).not.toContain('hunter2-secret-pw');
});
