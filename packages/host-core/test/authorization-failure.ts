import { AuthorizationError } from '../src/oauth/authorization-error.js';

/** What a piece of OAuth work failed with: an `AuthorizationError`, or this throws. */
export async function authorizationFailure(work: Promise<unknown>): Promise<AuthorizationError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AuthorizationError))
    throw new Error(`expected an AuthorizationError, got ${error === undefined ? 'success' : String(error)}`);
  return error;
}
