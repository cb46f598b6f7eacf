import type { ElicitationAnswer, ElicitationRequest } from '@ai-assistant/host-core';

type Property = {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
};

/** One question of a form: its key, the prompt line, and how an answer line becomes its value. */
export interface FormQuestion {
  key: string;
  prompt: string;
  required: boolean;
  read(line: string): { value?: string | number | boolean } | { problem: string };
}

/** The server's form as questions at the prompt, one per property, defaults shown in brackets. */
export function formQuestions(request: ElicitationRequest): FormQuestion[] {
  const properties = (request.requestedSchema?.properties ?? {}) as Record<string, Property>;
  const required = new Set((request.requestedSchema?.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([key, property]) => {
    const choices = property.oneOf?.map((option) => String(option.const)) ?? property.enum?.map(String);
    const hint = [
      property.description,
      choices ? `one of: ${choices.join(', ')}` : undefined,
      property.type === 'boolean' ? 'y/n' : undefined,
    ]
      .filter(Boolean)
      .join('; ');
    const fallback = property.default !== undefined ? ` [${String(property.default)}]` : '';
    return {
      key,
      required: required.has(key),
      prompt: `  ${property.title ?? key}${hint ? ` (${hint})` : ''}${fallback}${required.has(key) ? '' : ' (optional)'}: `,
      read(line) {
        const text = line.trim();
        if (text === '') {
          if (property.default !== undefined) return { value: property.default as string | number | boolean };
          return required.has(key) ? { problem: 'an answer is required' } : {};
        }
        if (property.type === 'boolean') return { value: /^(y|yes|true|1)$/i.test(text) };
        if (property.type === 'number' || property.type === 'integer') {
          const number = Number(text);
          if (!Number.isFinite(number) || (property.type === 'integer' && !Number.isInteger(number)))
            return { problem: property.type === 'integer' ? 'a whole number, please' : 'a number, please' };
          if (property.minimum !== undefined && number < property.minimum)
            return { problem: `at least ${property.minimum}` };
          if (property.maximum !== undefined && number > property.maximum)
            return { problem: `at most ${property.maximum}` };
          return { value: number };
        }
        if (choices && !choices.includes(text)) return { problem: `one of: ${choices.join(', ')}` };
        return { value: text };
      },
    };
  });
}

/**
 * `--once` has no one to ask: the question is declined, unless `--yes` was given and every required
 * field has a default (then the defaults are sent).
 */
export function unattendedAnswer(request: ElicitationRequest, yes: boolean): ElicitationAnswer {
  if (!yes || request.mode === 'url') return { action: 'decline' };
  const content: Record<string, string | number | boolean> = {};
  for (const question of formQuestions(request)) {
    const answer = question.read('');
    if ('problem' in answer) return { action: 'decline' };
    if (answer.value !== undefined) content[question.key] = answer.value;
  }
  return { action: 'accept', content };
}

/** A server's question at the prompt: a page to open, or its form one field at a time. */
export async function askAtPrompt(
  request: ElicitationRequest,
  lines: AsyncIterator<string>,
  note: (text: string) => void,
): Promise<ElicitationAnswer> {
  const read = async () => {
    const answer = await lines.next();
    return answer.done ? undefined : String(answer.value);
  };
  const yes = async () => /^(y|yes)$/i.test((await read())?.trim() ?? '');
  note(`📝 ${request.server} asks: ${request.message}\n`);
  if (request.mode === 'url') {
    note(`  It wants you to open ${request.url}\n  Open it? [y/N] `);
    return (await yes()) ? { action: 'accept' } : { action: 'decline' };
  }
  note('  Answer it? [y/N] ');
  if (!(await yes())) return { action: 'decline' };
  const content: Record<string, string | number | boolean> = {};
  for (const question of formQuestions(request)) {
    for (;;) {
      note(question.prompt);
      const line = await read();
      if (line === undefined) return { action: 'cancel' };
      const answer = question.read(line);
      if ('problem' in answer) {
        note(`    ${answer.problem}\n`);
        continue;
      }
      if (answer.value !== undefined) content[question.key] = answer.value;
      break;
    }
  }
  return { action: 'accept', content };
}
