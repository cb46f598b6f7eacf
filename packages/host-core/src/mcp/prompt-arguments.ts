/** Splits `key=value key2="two words"` (straight or curly quotes) into prompt arguments. */
export function parsePromptArguments(words: string): Record<string, string> {
  const args: Record<string, string> = {};
  for (const match of words.matchAll(/(\w+)=(?:"([^"]*)"|“([^”]*)”|(\S+))/g)) {
    args[match[1] as string] = match[2] ?? match[3] ?? match[4] ?? '';
  }
  return args;
}
