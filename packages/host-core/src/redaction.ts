import type { Logger } from './logger.js';

const secretVariable = /(_TOKEN|_KEY|_SECRET|PASSWORD)$/i;
const minimumLength = 6;
const maximumRemembered = 10_000;
const keyShaped = /\b(?:sk|sk-ant|sk-proj|xox[abpr]|xapp)-[A-Za-z0-9_*-]{6,}/g;

/** Values of the environment's secret-looking variables (`*_TOKEN`, `*_KEY`, `*_SECRET`, …). */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(
      ([name, value]) => secretVariable.test(name) && value !== undefined && value.length >= minimumLength,
    )
    .map(([, value]) => value as string);
}

/** Every form in which a secret may travel: itself, its credential part, URL-encoded, base64. */
function derivedForms(value: string): string[] {
  const forms = [value];
  // Header values like "Bearer abc…": the credential alone is a secret too.
  const credential = /^(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value)?.[1];
  if (credential) forms.push(credential);
  for (const form of [...forms]) {
    forms.push(encodeURIComponent(form));
    // HTTP Basic sends base64("user:password"); a server quoting the header back must not leak it.
    forms.push(Buffer.from(form, 'utf8').toString('base64'));
    forms.push(Buffer.from(form, 'utf8').toString('base64').replace(/=+$/, ''));
  }
  return forms.filter((form) => form.length >= minimumLength);
}

/**
 * The one redaction helper: knows every secret value (environment secrets, configured header values,
 * per-request tokens, and the forms derived from them) and replaces them with [REDACTED] in any text or
 * log record. Secrets of the environment and the config are pinned; per-request tokens are kept for the
 * newest {@link maximumRemembered} only, so a flood of tokens never evicts the important ones.
 */
export class Redactor {
  private readonly pinned = new Set<string>();
  private readonly recent = new Set<string>();
  /** Every secret, longest first (so a value containing another is replaced whole); rebuilt on change. */
  private ordered: string[] | undefined;

  constructor(initial: Iterable<string> = []) {
    this.pin(initial);
  }

  /** Remembers secrets for the life of the process (environment and configuration). */
  pin(values: Iterable<string | undefined>): void {
    for (const value of values) {
      if (!value || value.length < minimumLength) continue;
      for (const form of derivedForms(value)) {
        this.pinned.add(form);
        this.recent.delete(form);
      }
      this.ordered = undefined;
    }
  }

  /** Remembers per-request secrets (short ones are ignored: they would mangle ordinary text). */
  add(values: Iterable<string | undefined>): void {
    for (const value of values) {
      if (!value || value.length < minimumLength) continue;
      for (const form of derivedForms(value)) {
        if (this.pinned.has(form)) continue;
        this.recent.delete(form); // re-inserted as the newest
        this.recent.add(form);
        if (this.recent.size > maximumRemembered)
          this.recent.delete(this.recent.values().next().value as string);
      }
      this.ordered = undefined;
    }
  }

  /** The text with every known secret replaced. */
  redact(text: string): string {
    this.ordered ??= [...this.pinned, ...this.recent].sort((left, right) => right.length - left.length);
    let result = text;
    for (const secret of this.ordered) {
      if (result.includes(secret)) result = result.split(secret).join('[REDACTED]');
    }
    // Credentials of a known shape (API keys, Slack tokens) are hidden even when never registered.
    return result.replace(keyShaped, '[REDACTED]');
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
