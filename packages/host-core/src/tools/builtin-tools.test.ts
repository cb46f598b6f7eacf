import { describe, expect, it } from 'vitest';
import { builtinTools } from './builtin-tools.js';
import { CalculationError, calculate } from './calculate.js';

describe('calculate', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) × 3', 9],
    ['10 ÷ 4', 2.5],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', 4],
    ['17 % 5', 2],
    ['0.1 + 0.2', 0.30000000000000004],
    ['sqrt(16) + abs(-3)', 7],
    ['max(1, 5, 3) - min(4, 2)', 3],
    ['round(2 * pi)', 6],
    ['log(1000) + ln(e)', 4],
    ['1.5e3 / 3', 500],
    ['（１＋２）×３'.normalize('NFKC'), 9],
  ])('%s = %s', (expression, expected) => {
    expect(calculate(expression)).toBeCloseTo(expected, 12);
  });

  it.each([
    ['1 / 0', 'division by zero'],
    ['5 % 0', 'remainder by zero'],
    ['1 +', 'ends too early'],
    ['(1 + 2', 'closing parenthesis'],
    ['2 3', 'after a complete expression'],
    ['foo(1)', 'unknown name "foo"'],
    ['sqrt 4', 'needs parentheses'],
    ['1 $ 2', 'unexpected "$"'],
    ['', 'empty'],
    ['sqrt(-1)', 'not a finite number'],
  ])('%s fails clearly (%s)', (expression, message) => {
    expect(() => calculate(expression)).toThrow(CalculationError);
    expect(() => calculate(expression)).toThrow(message);
  });

  it('never evaluates code', () => {
    expect(() => calculate('process.exit(1)')).toThrow(CalculationError);
    expect(() => calculate('constructor')).toThrow('unknown name');
  });
});

describe('get_current_time', () => {
  const now = () => new Date('2026-03-12T20:30:05Z');
  const run = builtinTools.get_current_time?.run as (
    args: Record<string, unknown>,
    context: { now: () => Date },
  ) => string;

  it('defaults to Asia/Tokyo, with an ISO time and a Japanese-readable form', () => {
    const [iso, readable] = run({}, { now }).split('\n');
    expect(iso).toBe('2026-03-13T05:30:05+09:00 (Asia/Tokyo)');
    expect(readable).toContain('2026年3月13日');
    expect(readable).toContain('5:30:05');
  });

  it('honours another zone and rejects an unknown one', () => {
    expect(run({ timezone: 'Europe/London' }, { now })).toMatch(
      /^2026-03-12T20:30:05\+00:00 \(Europe\/London\)/,
    );
    expect(run({ timezone: 'America/New_York' }, { now })).toMatch(/^2026-03-12T16:30:05-04:00/);
    expect(() => run({ timezone: 'Mars/Olympus' }, { now })).toThrow('unknown time zone "Mars/Olympus"');
  });
});
