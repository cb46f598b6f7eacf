/** What the store logs with: a subset of pino's logger, so the apps pass theirs. */
export interface StoreLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export const silentStoreLogger: StoreLogger = { info() {}, warn() {}, error() {} };
