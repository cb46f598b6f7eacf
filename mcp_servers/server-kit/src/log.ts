/** Minimal structured logger: the server writes JSON lines to stderr, never to stdout (the protocol). */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

// pino's numbers, so one log pipeline (or pino-pretty) reads the host's lines and the servers' alike.
const levels = { info: 30, warn: 40, error: 50 } as const;

/**
 * A logger writing one JSON object per line to stderr, in pino's shape (`level`, `time` in epoch
 * milliseconds, `msg`, then the fields); `quiet` drops info lines.
 */
export function stderrLogger(options: { quiet?: boolean } = {}): Logger {
  const write = (level: keyof typeof levels, message: string, fields?: Record<string, unknown>) => {
    if (options.quiet && level === 'info') return;
    process.stderr.write(
      `${JSON.stringify({ level: levels[level], time: Date.now(), msg: message, ...fields })}\n`,
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
