/**
 * Whether a model reads images, when the configuration does not say (`LLM_VISION`): the current
 * OpenAI, Anthropic and Gemini chat models do; a local or unknown model is assumed not to, so its
 * images stay descriptions in the text.
 */
export function visionByDefault(model: string): boolean {
  return /^(gpt-4o|gpt-4\.1|gpt-5|o3|o4|chatgpt-4o|claude-|gemini-)/i.test(model);
}
