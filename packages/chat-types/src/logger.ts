/** The logging surface host-core needs; a pino logger fits it as it is. */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** A logger that drops everything: the default when none is injected. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
