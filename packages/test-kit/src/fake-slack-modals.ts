// The fake Slack's rules for modals (views.open, views.update, views.push).

/**
 * What Slack refuses in a modal (docs.slack.dev: views, block elements): a title or button label over
 * 24 characters, more than 100 blocks, a plain_text_input with max_length over 3000, a number_input
 * without is_decimal_allowed, an input block without an element.
 */
export function modalProblem(raw: unknown): string | undefined {
  const view = (typeof raw === 'string' ? JSON.parse(raw) : raw) as
    | {
        type?: string;
        title?: { text?: string };
        submit?: { text?: string };
        close?: { text?: string };
        blocks?: Array<Record<string, unknown>>;
      }
    | undefined;
  if (view?.type !== 'modal') return '[ERROR] a modal view is expected [json-pointer:/view/type]';
  for (const field of ['title', 'submit', 'close'] as const)
    if ((view[field]?.text?.length ?? 0) > 24)
      return `[ERROR] must be less than 25 characters [json-pointer:/view/${field}/text]`;
  if ((view.blocks?.length ?? 0) > 100)
    return '[ERROR] no more than 100 items allowed [json-pointer:/view/blocks]';
  for (const [index, block] of (view.blocks ?? []).entries()) {
    if (block.type !== 'input') continue;
    const element = block.element as Record<string, unknown> | undefined;
    if (!element) return `[ERROR] missing required field: element [json-pointer:/view/blocks/${index}]`;
    if (element.type === 'plain_text_input' && Number(element.max_length ?? 0) > 3000)
      return `[ERROR] must be no more than 3000 [json-pointer:/view/blocks/${index}/element/max_length]`;
    if (element.type === 'number_input' && typeof element.is_decimal_allowed !== 'boolean')
      return `[ERROR] missing required field: is_decimal_allowed [json-pointer:/view/blocks/${index}/element]`;
  }
  return undefined;
}
