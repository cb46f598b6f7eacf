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

/** Slack's limits: 100 blocks a view, 100 options a select, 2 000 characters a label, 75 an option. */
const maxInputs = 90;
const maxOptions = 100;
const clip = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);
const plain = (text: string, limit = 2000) => ({ type: 'plain_text' as const, text: clip(text, limit) });

/** The schema's properties in order, with whether each is required. */
function propertiesOf(schema: JsonSchema | undefined): Array<[string, Property, boolean]> {
  const properties = (schema?.properties ?? {}) as Record<string, Property>;
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return Object.entries(properties)
    .slice(0, maxInputs)
    .map(([key, property]) => [key, property, required.has(key)]);
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

function optionOf(choice: { value: string; title: string }) {
  return { text: plain(choice.title, 75), value: clip(choice.value, 150) };
}

/** One input's element, with the schema's default filled in. */
function elementOf(property: Property) {
  const choices = choicesOf(property);
  const initial = property.default;
  if (choices && property.type === 'array') {
    const options = choices.slice(0, maxOptions).map(optionOf);
    const chosen = Array.isArray(initial)
      ? options.filter((option) => initial.map(String).includes(option.value))
      : [];
    return {
      type: 'multi_static_select',
      action_id: 'value',
      options,
      ...(chosen.length ? { initial_options: chosen } : {}),
    };
  }
  if (choices) {
    const options = choices.slice(0, maxOptions).map(optionOf);
    const chosen = options.find((option) => option.value === String(initial));
    return {
      type: 'static_select',
      action_id: 'value',
      options,
      ...(chosen ? { initial_option: chosen } : {}),
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
  const text = typeof initial === 'string' ? initial : undefined;
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
    ...(property.minLength !== undefined ? { min_length: Math.min(property.minLength, 3000) } : {}),
    ...(property.maxLength !== undefined ? { max_length: Math.min(property.maxLength, 3000) } : {}),
    ...(text ? { initial_value: text } : {}),
  };
}

/** The modal's input blocks: one per property, labelled with its title, its description as a hint. */
export function formBlocks(schema: JsonSchema | undefined) {
  return propertiesOf(schema).map(([key, property, required], index) => ({
    type: 'input',
    block_id: `p${index}`,
    optional: !required,
    label: plain(property.title ?? key),
    ...(property.description ? { hint: plain(property.description) } : {}),
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
    if (property.type === 'array') {
      const chosen = (input.selected_options ?? []).map((option) => option.value);
      if (chosen.length > 0 || required) content[key] = chosen;
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
