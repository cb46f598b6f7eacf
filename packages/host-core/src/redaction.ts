import type { Logger } from './logger.js';

const secretVariable = /(_TOKEN|_KEY|_SECRET|PASSWORD)$/i;
const minimumLength = 6;
const maximumRemembered = 10_000;

/** Values of the environment's secret-looking variables (`*_TOKEN`, `*_KEY`, `*_SECRET`, …). */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(
      ([name, value]) => secretVariable.test(name) && value !== undefined && value.length >= minimumLength,
    )
    .map(([, value]) => value as string);
}

/**
 * The one redaction helper: knows every secret value (environment secrets, configured header values,
 * per-request tokens) and replaces them with [REDACTED] in any text or log record.
 */
export class Redactor {
  private readonly secrets = new Set<string>();

  constructor(initial: Iterable<string> = []) {
    this.add(initial);
  }

  /** Remembers more secret values (short ones are ignored: they would mangle ordinary text). */
  add(values: Iterable<string | undefined>): void {
    for (const value of values) {
      if (!value || value.length < minimumLength) continue;
      if (this.secrets.size >= maximumRemembered)
        this.secrets.delete(this.secrets.values().next().value as string);
      this.secrets.add(value);
      // Header values like "Bearer abc…": the credential alone is a secret too.
      const credential = /^(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value)?.[1];
      if (credential && credential.length >= minimumLength) this.secrets.add(credential);
      const encoded = encodeURIComponent(value);
      if (encoded !== value) this.secrets.add(encoded);
    }
  }

  /** The text with every known secret replaced. */
  redact(text: string): string {
    let result = text;
    // Longest first, so a value containing another is replaced whole.
    for (const secret of [...this.secrets].sort((left, right) => right.length - left.length)) {
      if (result.includes(secret)) result = result.split(secret).join('[REDACTED]');
    }
    return result;
  }

  /** A deep copy of a log field value with secrets replaced. */
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (depth > 6 || value === null || typeof value !== 'object') return value;
    if (value instanceof Error)
      return {
        name: value.name,
        message: this.redact(value.message),
        code: (value as { code?: unknown }).code,
      };
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item, depth + 1));
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, this.redactValue(item, depth + 1)]),
    );
  }

  /** Wraps a logger so nothing it writes contains a known secret. */
  wrap(logger: Logger): Logger {
    const at = (level: keyof Logger) => (fields: Record<string, unknown>, message: string) =>
      logger[level](this.redactValue(fields) as Record<string, unknown>, this.redact(message));
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }
}
