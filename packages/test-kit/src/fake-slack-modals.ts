// The fake Slack's rules for modals (views.open, views.update, views.push).

type Element = Record<string, unknown>;
type Option = { text?: { text?: string }; value?: string };

/** Options a select (100), checkboxes or radio buttons (10) may hold (docs.slack.dev: block elements). */
const maxOptions: Record<string, number> = {
  static_select: 100,
  multi_static_select: 100,
  checkboxes: 10,
  radio_buttons: 10,
};

/**
 * What Slack refuses in an element's options (option object: text at most 75 characters, value at most
 * 150; an initial option must be one of the options).
 */
function optionsProblem(element: Element, at: string): string | undefined {
  const limit = maxOptions[String(element.type)];
  if (limit === undefined) return undefined;
  const options = (element.options ?? []) as Option[];
  if (options.length < 1 || options.length > limit)
    return `[ERROR] must provide between 1 and ${limit} items [json-pointer:${at}/options]`;
  for (const [index, option] of options.entries()) {
    if ((option.text?.text?.length ?? 0) > 75)
      return `[ERROR] must be less than 76 characters [json-pointer:${at}/options/${index}/text/text]`;
    if ((option.value?.length ?? 0) > 150)
      return `[ERROR] must be less than 151 characters [json-pointer:${at}/options/${index}/value]`;
  }
  const initial = [
    ...(element.initial_option ? [element.initial_option as Option] : []),
    ...((element.initial_options ?? []) as Option[]),
  ];
  const offered = new Set(options.map((option) => JSON.stringify([option.text?.text, option.value])));
  if (initial.some((option) => !offered.has(JSON.stringify([option.text?.text, option.value]))))
    return `[ERROR] initial options must match the options [json-pointer:${at}]`;
  return undefined;
}

/** What Slack refuses in an input block's element. */
function elementProblem(element: Element, at: string): string | undefined {
  if (element.type === 'plain_text_input') {
    const maxLength = Number(element.max_length ?? 3000);
    if (maxLength > 3000) return `[ERROR] must be no more than 3000 [json-pointer:${at}/max_length]`;
    if (Number(element.min_length ?? 0) > 3000)
      return `[ERROR] must be no more than 3000 [json-pointer:${at}/min_length]`;
    // An initial value the input could not hold (max_length, at most 3000).
    if (String(element.initial_value ?? '').length > maxLength)
      return `[ERROR] must be no more than ${maxLength} characters [json-pointer:${at}/initial_value]`;
  }
  if (element.type === 'number_input' && typeof element.is_decimal_allowed !== 'boolean')
    return `[ERROR] missing required field: is_decimal_allowed [json-pointer:${at}]`;
  return optionsProblem(element, at);
}

/**
 * What Slack refuses in a modal (docs.slack.dev: modal views, blocks, block elements, option object): a
 * title or button label over 24 characters, more than 100 blocks, a section's text over 3000, an input
 * block without an element or with a label or hint over 2000, a plain_text_input with max_length or
 * min_length over 3000 or an initial value longer than it may hold, a number_input without
 * is_decimal_allowed, a select with more than 100 options (checkboxes, radio buttons: 10), an option's
 * text over 75 characters or its value over 150, an initial option not among the options.
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
    const at = `/view/blocks/${index}`;
    if (block.type === 'section' && ((block.text as { text?: string })?.text?.length ?? 0) > 3000)
      return `[ERROR] must be less than 3001 characters [json-pointer:${at}/text]`;
    if (block.type !== 'input') continue;
    for (const field of ['label', 'hint'])
      if (((block[field] as { text?: string } | undefined)?.text?.length ?? 0) > 2000)
        return `[ERROR] must be less than 2001 characters [json-pointer:${at}/${field}/text]`;
    const element = block.element as Element | undefined;
    if (!element) return `[ERROR] missing required field: element [json-pointer:${at}]`;
    const problem = elementProblem(element, `${at}/element`);
    if (problem) return problem;
  }
  return undefined;
}
