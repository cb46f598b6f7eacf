/** The fewest characters a credential may have: shorter ones are typing mistakes, or guessable. */
export const minimumCredentialLength = 8;

/**
 * Why a pasted credential cannot be a token, or undefined when it may be one. Control characters (a line
 * break pasted along, NUL) would end up in a header or an environment and in the error that quotes it;
 * very short or one-character-repeated values are mistakes, and would redact unrelated text everywhere.
 */
export function credentialProblem(secret: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  if (/[\u0000-\u001f\u007f]/.test(secret))
    return 'it contains a line break or another control character; paste the token alone, on one line';
  if (secret.length < minimumCredentialLength)
    return `it is too short to be a token (${secret.length} characters; at least ${minimumCredentialLength})`;
  if (new Set(secret).size < 4) return 'it repeats too few characters to be a token';
  return undefined;
}
