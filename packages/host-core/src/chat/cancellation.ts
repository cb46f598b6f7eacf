import { CancelledError } from '../errors.js';

/** The promise, or a rejection with {@link CancelledError} as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    // Aborted while the promise was being made: its own rejection is expected, and not unhandled.
    promise.catch(() => {});
    return Promise.reject(new CancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? new CancelledError() : error);
      },
    );
  });
}
