import type { Logger } from '@ai-assistant/chat-types';

const secretVariable = /(_TOKEN|_KEY|_SECRET|PASSWORD)$/i;
const minimumLength = 6;
const maximumRemembered = 10_000;
const keyShaped = /\b(?:sk|sk-ant|sk-proj|xox[abpr]|xapp)-[A-Za-z0-9_*-]{6,}/g;

/** Words in a variable's name that speak of a secret, wherever they stand in it. */
const secretWord = /(TOKEN|SECRET|PASSW|PWD|KEY|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE)/i;

/**
 * Whether a variable's value is plainly not a secret by its name: a folder, a file's path (`*_DIR`,
 * `*_PATH`, `*_FILE`, `*_FOLDER`) or a URL without userinfo, query or fragment (`*_URL`), when no word
 * of the name speaks of a secret (`PRIVATE_KEY_FILE` is kept hidden). Such a value is left visible in
 * what a server prints ("/tmp/missing is not a folder"); every other value filled into a server stays
 * redacted.
 */
export function plainByName(name: string, value: string): boolean {
  if (secretWord.test(name)) return false;
  if (/_(DIR|PATH|FILE|FOLDER)$/i.test(name)) return true;
  if (!/_URL$/i.test(name)) return false;
  try {
    const url = new URL(value);
    return !url.username && !url.password && !url.search && !url.hash;
  } catch {
    return false;
  }
}

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
    // As it appears quoted in JSON or a log line (escaped quotes, backslashes, control characters).
    forms.push(JSON.stringify(form).slice(1, -1));
    // HTTP Basic sends base64("user:password"); a server quoting the header back must not leak it.
    forms.push(Buffer.from(form, 'utf8').toString('base64'));
    forms.push(Buffer.from(form, 'utf8').toString('base64').replace(/=+$/, ''));
  }
  return [...new Set(forms)].filter((form) => form.length >= minimumLength);
}

/**
 * The one redaction helper. Secrets of the environment and the config are pinned: hidden everywhere.
 * A person's secrets (their credential, a turn's tokens) are hidden in that person's own output only,
 * passed as `extra` where it is written, so one person's token never rewrites another's results; logs
 * hide every such secret seen lately too (the newest {@link maximumRemembered}, so a flood of tokens
 * never evicts the pinned ones).
 */
export class Redactor {
  private readonly pinned = new Set<string>();
  private readonly forLogs = new Set<string>();
  /** Pinned secrets, longest first (so a value containing another is replaced whole); rebuilt on change. */
  private ordered: string[] | undefined;
  private orderedForLogs: string[] | undefined;
  private readonly derived = new Map<string, string[]>();

  constructor(initial: Iterable<string> = []) {
    this.pin(initial);
  }

  /** Remembers secrets for the life of the process (environment and configuration). */
  pin(values: Iterable<string | undefined>): void {
    for (const value of values) {
      if (!value || value.length < minimumLength) continue;
      for (const form of derivedForms(value)) {
        this.pinned.add(form);
        this.forLogs.delete(form);
      }
      this.ordered = undefined;
      this.orderedForLogs = undefined;
    }
  }

  /** Remembers a person's or a request's secrets for the logs (short ones would mangle ordinary text). */
  add(values: Iterable<string | undefined>): void {
    for (const value of values) {
      if (!value || value.length < minimumLength) continue;
      for (const form of this.formsOf(value)) {
        if (this.pinned.has(form)) continue;
        this.forLogs.delete(form); // re-inserted as the newest
        this.forLogs.add(form);
        if (this.forLogs.size > maximumRemembered)
          this.forLogs.delete(this.forLogs.values().next().value as string);
      }
      this.orderedForLogs = undefined;
    }
  }

  /** The text with every pinned secret, and the `extra` ones of whoever it is written for, replaced. */
  redact(text: string, extra?: Iterable<string | undefined>): string {
    this.ordered ??= longestFirst(this.pinned);
    const list = extra === undefined || Array.isArray(extra) ? extra : [...extra];
    if (list && list.length > 0) {
      const own = longestFirst(new Set(list.flatMap((value) => (value ? this.formsOf(value) : []))));
      return replaceKeyShaped(replaceSecrets(replaceSecrets(text, own), this.ordered));
    }
    return replaceKeyShaped(replaceSecrets(text, this.ordered));
  }

  /** A secret's derived forms, remembered (a person's credential is redacted in every call of theirs). */
  private formsOf(value: string): string[] {
    let forms = this.derived.get(value);
    if (!forms) {
      forms = derivedForms(value);
      if (this.derived.size >= 1000) this.derived.delete(this.derived.keys().next().value as string);
      this.derived.set(value, forms);
    }
    return forms;
  }

  /** A log line's text: pinned secrets and every person's or request's secret seen lately. */
  redactForLog(text: string): string {
    this.ordered ??= longestFirst(this.pinned);
    this.orderedForLogs ??= longestFirst(this.forLogs);
    return replaceKeyShaped(replaceSecrets(replaceSecrets(text, this.orderedForLogs), this.ordered));
  }

  /** A deep copy of a value with secrets replaced (pinned, plus `extra` as in {@link redact}). */
  redactValue(value: unknown, extra?: Iterable<string | undefined>): unknown {
    const list = extra ? [...extra] : undefined;
    return deepMap(value, (text) => this.redact(text, list));
  }

  /** Wraps a logger so nothing it writes contains a known secret, anyone's. */
  wrap(logger: Logger): Logger {
    const at = (level: keyof Logger) => (fields: Record<string, unknown>, message: string) =>
      logger[level](
        deepMap(fields, (text) => this.redactForLog(text)) as Record<string, unknown>,
        this.redactForLog(message),
      );
    return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  }

  /** A deep copy of a log field value with every known secret replaced. */
  redactLogValue(value: unknown): unknown {
    return deepMap(value, (text) => this.redactForLog(text));
  }
}

const longestFirst = (values: Iterable<string>) =>
  [...values].sort((left, right) => right.length - left.length);

function replaceSecrets(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join('[REDACTED]');
  return result;
}

/** Credentials of a known shape (API keys, Slack tokens) are hidden even when never registered. */
function replaceKeyShaped(text: string): string {
  return text.replace(keyShaped, '[REDACTED]');
}

/** A deep copy with every string passed through `redact` (errors as name, message, code). */
function deepMap(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error)
    return { name: value.name, message: redact(value.message), code: (value as { code?: unknown }).code };
  if (Array.isArray(value)) return value.map((item) => deepMap(item, redact, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, deepMap(item, redact, depth + 1)]),
  );
}
