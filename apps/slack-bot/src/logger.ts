import { environmentSecrets, Redactor } from '@ai-assistant/host-core';
import { type DestinationStream, type Logger as PinoLogger, pino } from 'pino';
import pretty from 'pino-pretty';

/**
 * Where log lines go: readable lines (pino-pretty) when `fd` is a terminal or LOG_FORMAT=pretty, JSON
 * lines otherwise (LOG_FORMAT=json forces them), for a log pipeline.
 */
export function logDestination(env: NodeJS.ProcessEnv, fd: 1 | 2): DestinationStream {
  const terminal = (fd === 1 ? process.stdout : process.stderr).isTTY;
  const readable = env.LOG_FORMAT === 'pretty' || (env.LOG_FORMAT !== 'json' && terminal);
  return readable
    ? pretty({ destination: fd, colorize: terminal, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' })
    : pino.destination(fd);
}

/**
 * A pino logger (JSON lines on stdout) that never prints a secret: token-like fields are censored
 * by path, and host-core's Redactor scrubs every secret value of the environment from what is logged.
 */
export function createLogger(
  env: NodeJS.ProcessEnv = process.env,
  destination?: NodeJS.WritableStream,
  redactor: Redactor = new Redactor(environmentSecrets(env)),
): PinoLogger {
  return pino(
    {
      level: env.LOG_LEVEL || 'info',
      redact: {
        paths: ['token', 'apiKey', 'authorization', '*.token', '*.authorization', 'headers.authorization'],
        censor: '[REDACTED]',
      },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => redactor.redactLogValue(arg)) as Parameters<typeof method>);
        },
      },
    },
    destination ?? logDestination(env, 1),
  );
}
