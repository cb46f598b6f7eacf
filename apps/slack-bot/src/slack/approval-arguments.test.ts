import { describe, expect, it } from 'vitest';
import { argumentDisplay } from './approval-arguments.js';

describe('argumentDisplay', () => {
  it('a very long argument name is refused at once (before: the splitter looped forever)', () => {
    for (const name of ['k'.repeat(3000), '&'.repeat(600)]) {
      const display = argumentDisplay({ [name]: 'value' });
      expect(display.complete).toBe(false);
    }
  });

  it('every piece of a long value stays within Slack’s section limit, surrogate pairs whole', () => {
    const value = `${'😀'.repeat(2000)}&<>`.repeat(2);
    const display = argumentDisplay({ note: value });
    if (!display.complete) throw new Error(display.reason);
    const texts = display.blocks.map((block) => block.text?.text ?? '');
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(3000);
      expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
    expect(texts.map((text) => text.replace(/^\*note\* \(\d+\/\d+\)\n/, '')).join('')).toBe(
      value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'),
    );
  });
});
