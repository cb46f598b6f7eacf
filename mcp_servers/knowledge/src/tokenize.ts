// Japanese has no spaces between words: CJK runs become overlapping character bigrams, which BM25
// ranks well without a dictionary. Latin script and digits become lower-cased words.
const cjk = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+$/u;
// A CJK run, or a run of other letters and digits (never swallowing CJK: \p{L} includes kana).
const pieces =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々])[\p{L}\p{N}_])+/gu;

/** Splits text into search terms: words for Latin script, character bigrams for CJK. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(pieces)) {
    const piece = match[0];
    if (!cjk.test(piece)) {
      terms.push(piece);
      continue;
    }
    const characters = [...piece];
    if (characters.length === 1) terms.push(piece);
    for (let index = 0; index < characters.length - 1; index++)
      terms.push(`${characters[index]}${characters[index + 1]}`);
  }
  return terms;
}
