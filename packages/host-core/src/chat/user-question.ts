import type { Message } from '@ai-assistant/chat-types';
import type { RespondInput } from './chat-types.js';

// The person's question as it reaches the model: what they attached, then the images a model reads.

/** The input with what the person attached read in (after the turn was admitted). */
export async function withAttached(input: RespondInput): Promise<RespondInput> {
  if (!input.attached) return input;
  const { text, images } = await input.attached();
  return {
    ...input,
    userMessage: text ? `${input.userMessage}\n\n${text}` : input.userMessage,
    ...(images?.length ? { userImages: [...(input.userImages ?? []), ...images] } : {}),
  };
}

/**
 * The question as the model reads it: with the images the person attached when the model reads
 * images, else with a line saying they are there and unseen (so the model does not pretend).
 */
export function userQuestion(input: RespondInput, readsImages: boolean): Message {
  const images = input.userImages ?? [];
  if (images.length === 0) return { role: 'user', content: input.userMessage };
  if (readsImages) return { role: 'user', content: input.userMessage, images };
  return {
    role: 'user',
    content: `${input.userMessage}\n\n[${images.length} image(s) attached, which this model cannot see. If the question needs them, say so.]`,
  };
}
