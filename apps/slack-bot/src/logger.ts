import { environmentSecrets, Redactor } from '@ai-assistant/host-core';
import { type Logger as PinoLogger, pino } from 'pino';

/**
 * A pino logger (JSON lines on stdout) that never prints a secret: token-like fields are censored
 * by path, and host-core's Redactor scrubs every secret value of the environment from what is logged.
 */
export function createLogger(
  env: NodeJS.ProcessEnv = process.env,
  destination?: NodeJS.WritableStream,
): PinoLogger {
  const redactor = new Redactor(environmentSecrets(env));
  return pino(
    {
      level: env.LOG_LEVEL || 'info',
      redact: {
        paths: ['token', 'apiKey', 'authorization', '*.token', '*.authorization', 'headers.authorization'],
        censor: '[REDACTED]',
      },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => redactor.redactValue(arg)) as Parameters<typeof method>);
        },
      },
    },
    destination ?? pino.destination(1),
  );
}
