/** Minimal structured logger: the server writes JSON lines to stderr, never to stdout (the protocol). */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger writing one JSON object per line to stderr; `quiet` drops info lines. */
export function stderrLogger(options: { quiet?: boolean } = {}): Logger {
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    if (options.quiet && level === 'info') return;
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`,
    );
  };
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/** A logger that drops everything (tests, in-memory servers). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
