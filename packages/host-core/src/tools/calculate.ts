import { HostError } from '@ai-assistant/chat-types';
/** Longest expression accepted, in characters. */
export const maxExpressionLength = 2000;
/** Deepest nesting of parentheses, signs and powers accepted. */
export const maxDepth = 100;

/** An expression `calculate` cannot evaluate; the message says where and why. */
export class CalculationError extends HostError {
  override name = 'CalculationError';
  constructor(message: string) {
    super('CALCULATION_FAILED', message);
  }
}

type Token =
  | { kind: 'number'; value: number }
  | { kind: 'name'; value: string }
  | { kind: 'symbol'; value: string };

const functions: Record<string, (...values: number[]) => number> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  ln: Math.log,
  log: Math.log10,
  log10: Math.log10,
  log2: Math.log2,
  exp: Math.exp,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  min: Math.min,
  max: Math.max,
  pow: Math.pow,
};
const constants: Record<string, number> = { pi: Math.PI, π: Math.PI, e: Math.E };
const symbolAliases: Record<string, string> = {
  '×': '*',
  '÷': '/',
  '−': '-',
  '＋': '+',
  '－': '-',
  '（': '(',
  '）': ')',
  '＊': '*',
  '／': '/',
};

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const text = expression.replace(/[×÷−＋－（）＊／]/g, (character) => symbolAliases[character] ?? character);
  let index = 0;
  while (index < text.length) {
    const rest = text.slice(index);
    const space = /^\s+/.exec(rest);
    if (space) {
      index += space[0].length;
      continue;
    }
    const number = /^(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?/i.exec(rest);
    if (number) {
      tokens.push({ kind: 'number', value: Number(number[0]) });
      index += number[0].length;
      continue;
    }
    const name = /^([a-z][a-z0-9]*|π)/i.exec(rest);
    if (name) {
      tokens.push({ kind: 'name', value: name[0].toLowerCase() });
      index += name[0].length;
      continue;
    }
    if ('+-*/^%(),'.includes(rest[0] as string)) {
      tokens.push({ kind: 'symbol', value: rest[0] as string });
      index += 1;
      continue;
    }
    throw new CalculationError(`unexpected "${rest[0]}" at position ${index + 1}`);
  }
  return tokens;
}

/**
 * Evaluates arithmetic with + − × ÷ ^ % (remainder), parentheses, decimals, pi/e and common
 * functions (sqrt, abs, sin, cos, tan, ln, log, exp, round, floor, ceil, min, max, pow …) with a
 * recursive-descent parser — never `eval`.
 */
export function calculate(expression: string): number {
  if (expression.length > maxExpressionLength)
    throw new CalculationError(`the expression is too long (more than ${maxExpressionLength} characters)`);
  const tokens = tokenize(expression);
  if (tokens.length === 0) throw new CalculationError('the expression is empty');
  let position = 0;
  let depth = 0;
  // Parentheses, signs and powers recurse: bound them, so a hostile expression gets an answer, not a stack overflow.
  const deeper = <T>(parse: () => T): T => {
    if (++depth > maxDepth)
      throw new CalculationError(
        `the expression is too deeply nested (more than ${maxDepth} levels of parentheses, signs or powers)`,
      );
    try {
      return parse();
    } finally {
      depth--;
    }
  };
  const peek = () => tokens[position];
  const take = (symbol: string) => {
    const token = peek();
    if (token?.kind === 'symbol' && token.value === symbol) {
      position++;
      return true;
    }
    return false;
  };

  const sum = (): number => {
    let value = product();
    for (;;) {
      if (take('+')) value += product();
      else if (take('-')) value -= product();
      else return value;
    }
  };
  const product = (): number => {
    let value = power();
    for (;;) {
      if (take('*')) value *= power();
      else if (take('/')) {
        const divisor = power();
        if (divisor === 0) throw new CalculationError('division by zero');
        value /= divisor;
      } else if (take('%')) {
        const divisor = power();
        if (divisor === 0) throw new CalculationError('remainder by zero');
        value %= divisor;
      } else return value;
    }
  };
  const power = (): number => {
    const base = unary();
    return take('^') ? base ** deeper(power) : base;
  };
  const unary = (): number => {
    if (take('-')) return -deeper(unary);
    if (take('+')) return deeper(unary);
    return primary();
  };
  const primary = (): number => {
    const token = peek();
    if (!token) throw new CalculationError('the expression ends too early');
    position++;
    if (token.kind === 'number') return token.value;
    if (token.kind === 'symbol' && token.value === '(') {
      const value = deeper(sum);
      if (!take(')')) throw new CalculationError('a closing parenthesis is missing');
      return value;
    }
    if (token.kind === 'name') {
      // Own properties only: "constructor" must not find Object.prototype's.
      const fn = Object.hasOwn(functions, token.value) ? functions[token.value] : undefined;
      if (fn) {
        if (!take('('))
          throw new CalculationError(`${token.value} needs parentheses, e.g. ${token.value}(2)`);
        const args = [deeper(sum)];
        while (take(',')) args.push(deeper(sum));
        if (!take(')')) throw new CalculationError(`a closing parenthesis is missing after ${token.value}(…`);
        return fn(...args);
      }
      const constant = Object.hasOwn(constants, token.value) ? constants[token.value] : undefined;
      if (constant !== undefined) return constant;
      throw new CalculationError(`unknown name "${token.value}"`);
    }
    throw new CalculationError(`unexpected "${token.value}"`);
  };

  const value = sum();
  if (position < tokens.length) {
    const token = tokens[position] as Token;
    throw new CalculationError(`unexpected "${String(token.value)}" after a complete expression`);
  }
  if (!Number.isFinite(value)) throw new CalculationError('the result is not a finite number');
  return value;
}
