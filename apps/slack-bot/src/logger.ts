import { type Logger as PinoLogger, pino } from 'pino';

const secretName = /(_TOKEN|_KEY|_SECRET|PASSWORD)$/;

/** Values of the environment's secret-looking variables (tokens, keys, secrets). */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => secretName.test(name) && value && value.length >= 6)
    .map(([, value]) => value as string);
}

/** Replaces every known secret value in a string with [REDACTED]. */
export function redact(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) result = result.split(secret).join('[REDACTED]');
  return result;
}

/**
 * A pino logger (JSON lines on stdout) that never prints a secret: token-like fields are censored
 * by path, and every secret value from the environment is scrubbed from whatever is logged.
 */
export function createLogger(
  env: NodeJS.ProcessEnv = process.env,
  destination?: NodeJS.WritableStream,
): PinoLogger {
  const secrets = secretValues(env);
  const scrub = (value: unknown): unknown => {
    if (typeof value === 'string') return redact(value, secrets);
    if (value instanceof Error)
      return {
        type: value.name,
        message: redact(value.message, secrets),
        code: (value as { code?: unknown }).code,
      };
    if (Array.isArray(value)) return value.map(scrub);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrub(item)]));
    return value;
  };
  return pino(
    {
      level: env.LOG_LEVEL || 'info',
      redact: {
        paths: ['token', 'apiKey', 'authorization', '*.token', '*.authorization', 'headers.authorization'],
        censor: '[REDACTED]',
      },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map(scrub) as Parameters<typeof method>);
        },
      },
    },
    destination ?? pino.destination(1),
  );
}
