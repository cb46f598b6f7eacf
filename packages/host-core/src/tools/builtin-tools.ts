import type { JsonSchema } from '@ai-assistant/chat-types';
import { CalculationError, calculate } from './calculate.js';

/** A tool implemented inside the host. */
export interface BuiltinImplementation {
  description: string;
  inputSchema: JsonSchema;
  /** Returns the text result; throws an Error whose message the model may read. */
  run(args: Record<string, unknown>, context: { now: () => Date }): string;
}

function offsetOf(instant: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(instant)
    .find((part) => part.type === 'timeZoneName')?.value;
  const match = /GMT([+-]\d{2}):?(\d{2})?/.exec(name ?? '');
  return match ? `${match[1]}:${match[2] ?? '00'}` : 'Z';
}

function isoInZone(instant: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offsetOf(instant, timeZone)}`;
}

/** The builtin tools the host ships. */
export const builtinTools: Record<string, BuiltinImplementation> = {
  get_current_time: {
    description: 'Current date and time in a time zone (IANA name, default Asia/Tokyo).',
    inputSchema: {
      type: 'object',
      properties: {
        timezone: { type: 'string', description: 'IANA time zone, e.g. Asia/Tokyo, Europe/London' },
      },
    },
    run(args, { now }) {
      const timeZone =
        typeof args.timezone === 'string' && args.timezone.trim() ? args.timezone.trim() : 'Asia/Tokyo';
      const instant = now();
      let readable: string;
      try {
        readable = new Intl.DateTimeFormat('ja-JP', {
          timeZone,
          dateStyle: 'full',
          timeStyle: 'long',
        }).format(instant);
      } catch {
        throw new Error(
          `unknown time zone "${timeZone}"; use an IANA name such as Asia/Tokyo or America/New_York`,
        );
      }
      return `${isoInZone(instant, timeZone)} (${timeZone})\n${readable}`;
    },
  },
  calculate: {
    description:
      'Evaluates an arithmetic expression: + - × ÷ ^ % (remainder), parentheses, decimals, pi, e, sqrt, abs, sin, cos, tan, ln, log, exp, round, floor, ceil, min, max, pow.',
    inputSchema: {
      type: 'object',
      properties: { expression: { type: 'string', description: 'e.g. (1.5 + 2) × 3 ^ 2' } },
      required: ['expression'],
    },
    run(args) {
      const expression = String(args.expression ?? '');
      try {
        const value = calculate(expression);
        return `${expression} = ${Number(value.toPrecision(12))}`;
      } catch (error) {
        if (error instanceof CalculationError)
          throw new Error(`cannot calculate "${expression}": ${error.message}`);
        throw error;
      }
    },
  },
};
