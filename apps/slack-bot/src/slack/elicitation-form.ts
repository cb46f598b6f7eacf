import type { JsonSchema } from '@ai-assistant/host-core';

// A server's elicitation schema (MCP: an object of primitive properties) as Slack modal inputs, and
// the submitted view read back into the values the schema asked for.

type Property = {
  type?: string;
  title?: string;
  description?: string;
  format?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  anyOf?: Array<{ const?: unknown; title?: string }>;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown; title?: string }> };
};

// Slack's limits (docs.slack.dev: modal views, 100 blocks; option object, text 75 characters, value
// 150; static and multi-static select, 100 options; plain-text input, max_length 3 000; input block,
// label and hint 2 000). The modal's first block is the server's message, so 99 inputs fit.
const maxInputs = 99;
const maxOptions = 100;
const maxText = 3000;
const clip = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);
const plain = (text: string, limit = 2000) => ({ type: 'plain_text' as const, text: clip(text, limit) });
const count = (value: number) => value.toLocaleString('en-US');

/** The schema's properties in order, with whether each is required. */
function propertiesOf(schema: JsonSchema | undefined): Array<[string, Property, boolean]> {
  const properties = (schema?.properties ?? {}) as Record<string, Property>;
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([key, property]) => [key, property, required.has(key)]);
}

/**
 * Why a server's form cannot be shown whole in one Slack modal (then it is declined, not cut), or
 * undefined when it can.
 */
export function formProblem(schema: JsonSchema | undefined): string | undefined {
  const properties = propertiesOf(schema);
  if (properties.length > maxInputs)
    return `the form has ${count(properties.length)} fields, and a Slack form shows at most ${maxInputs}`;
  for (const [key, property] of properties) {
    const choices = choicesOf(property)?.length ?? 0;
    if (choices > maxOptions)
      return `the field "${clip(key, 60)}" has ${count(choices)} choices, and a Slack menu shows at most ${maxOptions}`;
    if ((property.minLength ?? 0) > maxText)
      return `the field "${clip(key, 60)}" needs at least ${count(property.minLength ?? 0)} characters, and a Slack input takes at most ${count(maxText)}`;
  }
  return undefined;
}

/** The choices of an enum property: values with their titles. */
function choicesOf(property: Property): Array<{ value: string; title: string }> | undefined {
  const titled = property.oneOf ?? property.anyOf ?? property.items?.anyOf;
  if (titled)
    return titled.map((option) => ({
      value: String(option.const),
      title: option.title ?? String(option.const),
    }));
  const values = property.enum ?? property.items?.enum;
  if (!values) return undefined;
  return values.map((value, index) => ({
    value: String(value),
    title: property.enumNames?.[index] ?? String(value),
  }));
}

/** A choice as Slack's option: its title (clipped for display only) and its place as the value. */
function optionOf(choice: { title: string }, index: number) {
  return { text: plain(choice.title, 75), value: String(index) };
}

/** The choice an option's value (its place) names, or undefined for one the form never offered. */
const choiceAt = (choices: Array<{ value: string }>, value: string) =>
  /^\d+$/.test(value) ? choices[Number(value)]?.value : undefined;

/** A text default Slack can show, or why it is left out. */
function textDefault(property: Property): { initial?: string; note?: string } {
  if (typeof property.default !== 'string' || property.default === '') return {};
  const limit = Math.min(property.maxLength ?? maxText, maxText);
  if (property.default.length <= limit) return { initial: property.default };
  return {
    note: `The server suggests a text of ${count(property.default.length)} characters, more than this field takes (${count(limit)}): it is not shown here. Left empty, the server's suggestion is sent.`,
  };
}

/** One input's element, with the schema's default filled in where Slack can show it. */
function elementOf(property: Property) {
  const choices = choicesOf(property);
  const initial = property.default;
  if (choices && property.type === 'array') {
    const wanted = Array.isArray(initial) ? initial.map(String) : [];
    const chosen = choices.flatMap((choice, index) =>
      wanted.includes(choice.value) ? [optionOf(choice, index)] : [],
    );
    return {
      type: 'multi_static_select',
      action_id: 'value',
      options: choices.map(optionOf),
      ...(chosen.length ? { initial_options: chosen } : {}),
    };
  }
  if (choices) {
    const index = choices.findIndex((choice) => choice.value === String(initial));
    const chosen = index === -1 ? undefined : choices[index];
    return {
      type: 'static_select',
      action_id: 'value',
      options: choices.map(optionOf),
      ...(chosen ? { initial_option: optionOf(chosen, index) } : {}),
    };
  }
  if (property.type === 'boolean') {
    const option = { text: plain(property.title ?? 'Yes', 75), value: 'true' };
    return {
      type: 'checkboxes',
      action_id: 'value',
      options: [option],
      ...(initial === true ? { initial_options: [option] } : {}),
    };
  }
  if (property.type === 'number' || property.type === 'integer')
    return {
      type: 'number_input',
      action_id: 'value',
      is_decimal_allowed: property.type === 'number',
      ...(property.minimum !== undefined ? { min_value: String(property.minimum) } : {}),
      ...(property.maximum !== undefined ? { max_value: String(property.maximum) } : {}),
      ...(typeof initial === 'number' ? { initial_value: String(initial) } : {}),
    };
  const text = textDefault(property).initial;
  if (property.format === 'email')
    return { type: 'email_text_input', action_id: 'value', ...(text ? { initial_value: text } : {}) };
  if (property.format === 'uri')
    return { type: 'url_text_input', action_id: 'value', ...(text ? { initial_value: text } : {}) };
  if (property.format === 'date')
    return {
      type: 'datepicker',
      action_id: 'value',
      ...(text && /^\d{4}-\d{2}-\d{2}$/.test(text) ? { initial_date: text } : {}),
    };
  return {
    type: 'plain_text_input',
    action_id: 'value',
    ...(property.minLength !== undefined ? { min_length: property.minLength } : {}),
    ...(property.maxLength !== undefined ? { max_length: Math.min(property.maxLength, maxText) } : {}),
    ...(text ? { initial_value: text } : {}),
  };
}

/** A field's hint: its description, then why its default is left out (that note is never clipped). */
function hintOf(property: Property): { hint?: ReturnType<typeof plain> } {
  const note = choicesOf(property) ? undefined : textDefault(property).note;
  const description = property.description
    ? clip(property.description, 2000 - (note ? note.length + 1 : 0))
    : '';
  const hint = [description, note].filter(Boolean).join('\n');
  return hint ? { hint: plain(hint) } : {};
}

/** The modal's input blocks: one per property, labelled with its title, its description as a hint. */
export function formBlocks(schema: JsonSchema | undefined) {
  return propertiesOf(schema).map(([key, property, required], index) => ({
    type: 'input',
    block_id: `p${index}`,
    optional: !required,
    label: plain(property.title ?? key),
    ...hintOf(property),
    element: elementOf(property),
  }));
}

type SlackValue = {
  value?: string | null;
  selected_option?: { value: string } | null;
  selected_options?: Array<{ value: string }>;
  selected_date?: string | null;
};

/** Reads the submitted view back into the schema's values, or the errors to show by block. */
export function readForm(
  schema: JsonSchema | undefined,
  values: Record<string, Record<string, SlackValue>>,
): { content: Record<string, string | number | boolean | string[]> } | { errors: Record<string, string> } {
  const content: Record<string, string | number | boolean | string[]> = {};
  const errors: Record<string, string> = {};
  propertiesOf(schema).forEach(([key, property, required], index) => {
    const block = `p${index}`;
    const input = values[block]?.value ?? {};
    if (property.type === 'boolean') {
      content[key] = (input.selected_options ?? []).length > 0;
      return;
    }
    const choices = choicesOf(property);
    if (property.type === 'array') {
      const chosen = (input.selected_options ?? []).map((option) =>
        choices ? choiceAt(choices, option.value) : option.value,
      );
      if (chosen.some((value) => value === undefined)) errors[block] = 'Choose among the options shown.';
      else if (chosen.length > 0 || required) content[key] = chosen as string[];
      return;
    }
    if (choices && input.selected_option) {
      const value = choiceAt(choices, input.selected_option.value);
      if (value === undefined) errors[block] = 'Choose among the options shown.';
      else content[key] = value;
      return;
    }
    const raw = input.selected_option?.value ?? input.selected_date ?? input.value ?? '';
    if (raw === '') {
      if (required) errors[block] = 'This is required.';
      return;
    }
    if (property.type === 'number' || property.type === 'integer') {
      const number = Number(raw);
      if (!Number.isFinite(number) || (property.type === 'integer' && !Number.isInteger(number)))
        errors[block] = property.type === 'integer' ? 'Enter a whole number.' : 'Enter a number.';
      else if (property.minimum !== undefined && number < property.minimum)
        errors[block] = `At least ${property.minimum}.`;
      else if (property.maximum !== undefined && number > property.maximum)
        errors[block] = `At most ${property.maximum}.`;
      else content[key] = number;
      return;
    }
    content[key] = raw;
  });
  return Object.keys(errors).length > 0 ? { errors } : { content };
}
