const katakana = /[\u30a1-\u30f6]/g;

/** Folds width, case, katakana→hiragana and spacing so that 東京, ﾄｳｷｮｳ, とうきょう and TOKYO compare. */
export function normalizePlace(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[ヶヵ]/g, 'け')
    .replace(katakana, (character) => String.fromCharCode(character.charCodeAt(0) - 0x60))
    .replace(/[\s・･,、。.'’-]+/g, '');
}

const suffixes = ['地方', '都', '道', '府', '県', '市', '区', '町', '村'];
const kanaSuffixes = ['ちょう', 'まち', 'むら', 'そん', 'し', 'く'];
const englishSuffixes = ['prefecture', 'region', 'city', 'ward', 'town', 'village', 'area'];

/** The name without its administrative suffix (東京都 → 東京, 横浜市 → 横浜), when something is left. */
export function stripSuffix(normalized: string): string {
  for (const suffix of [...suffixes, ...englishSuffixes]) {
    if (normalized.length > suffix.length + 1 && normalized.endsWith(suffix)) {
      return normalized.slice(0, -suffix.length);
    }
  }
  return normalized;
}

/** Kana reading without its suffix reading (よこはまし → よこはま). */
export function stripKanaSuffix(kana: string): string {
  for (const suffix of kanaSuffixes) {
    if (kana.length > suffix.length + 1 && kana.endsWith(suffix)) return kana.slice(0, -suffix.length);
  }
  return kana;
}
