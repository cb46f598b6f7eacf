/** The turn was aborted by its signal. */
export class ChatCancelledError extends Error {
  override name = 'ChatCancelledError';
  readonly code = 'CANCELLED';
  constructor() {
    super('The answer was cancelled before it was finished.');
  }
}

/** The promise, or a rejection with {@link ChatCancelledError} as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new ChatCancelledError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ChatCancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? new ChatCancelledError() : error);
      },
    );
  });
}
