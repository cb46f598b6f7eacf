/** One line a {@link recordingLogger} kept. */
export interface RecordedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** A logger (host-core's and pino's `(fields, message)` shape) that keeps every line, to assert on. */
export function recordingLogger() {
  const lines: RecordedLine[] = [];
  const at = (level: RecordedLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, message, fields });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
