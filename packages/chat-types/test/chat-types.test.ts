import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostError, silentLogger } from '../src/index.js';

const root = join(import.meta.dirname, '..');

describe('chat-types', () => {
  it('#44 a HostError carries its code and cause, and a subclass keeps both', () => {
    class Refused extends HostError {
      override name = 'Refused';
    }
    const cause = new Error('underneath');
    const error = new Refused('REFUSED_ADDRESS', 'no', { cause });
    expect(error).toBeInstanceOf(HostError);
    expect(error).toBeInstanceOf(Error);
    expect({ code: error.code, name: error.name, message: error.message, cause: error.cause }).toEqual({
      code: 'REFUSED_ADDRESS',
      name: 'Refused',
      message: 'no',
      cause,
    });
  });

  it('#44 has no runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(() => silentLogger.error({ a: 1 }, 'dropped')).not.toThrow();
  });
});
