import { z } from 'zod';
import { foreignPlaces, majorCities } from './known-places.js';
import { normalizePlace, stripKanaSuffix, stripSuffix } from './normalize.js';
import { prefectureOf, prefectures } from './prefectures.js';

const areaNode = z
  .object({
    name: z.string(),
    enName: z.string().optional(),
    kana: z.string().optional(),
    parent: z.string().optional(),
    children: z.array(z.string()).optional(),
  })
  .loose();
/** The shape of `/bosai/common/const/area.json` that the resolver relies on. */
export const areaTableSchema = z
  .object({
    offices: z.record(z.string(), areaNode),
    class10s: z.record(z.string(), areaNode),
    class15s: z.record(z.string(), areaNode),
    class20s: z.record(z.string(), areaNode),
  })
  .loose();
export type AreaTable = z.infer<typeof areaTableSchema>;

type Level = 'office' | 'class10' | 'class15' | 'class20';
const levelOrder: Level[] = ['office', 'class10', 'class15', 'class20'];

/** A place the forecast can be given for: the office file to fetch and the class10 area within it. */
export interface ResolvedPlace {
  /** The name that matched (東京都, 横浜市, 八丈島 …). */
  matchedName: string;
  matchedLevel: Level;
  prefecture: string;
  /** Office whose forecast file covers the area. */
  officeCode: string;
  officeName: string;
  class10Code: string;
  class10Name: string;
  /** JMA's English names (area.json `enName`; the code where it has none), for ASCII-only labels. */
  matchedEnglishName: string;
  class10EnglishName: string;
}

/** The outcome of resolving what a user typed. */
export type PlaceResolution =
  | { kind: 'found'; place: ResolvedPlace }
  | { kind: 'ambiguous'; candidates: string[] }
  | { kind: 'not_found'; suggestions: string[] }
  | { kind: 'foreign'; name: string }
  | { kind: 'invalid'; reason: string };

interface Entry extends ResolvedPlace {
  keys: string[];
}

// 十勝 and 奄美 have no forecast file of their own: their areas are in these offices' files (quirk 13).
const forecastOffice: Record<string, string> = { '014030': '014100', '460040': '460100' };

/** Longest location text accepted; anything longer is not a place name. */
export const maxPlaceLength = 64;

function baseName(name: string): string {
  return name.replace(/[（(].*$/, '');
}

function keysFor(name: string, enName: string | undefined, kana: string | undefined): string[] {
  const keys = new Set<string>();
  for (const value of [name, baseName(name), enName ?? '']) {
    const normalized = normalizePlace(value);
    if (normalized) keys.add(normalized).add(stripSuffix(normalized));
  }
  if (kana) {
    const normalized = normalizePlace(kana);
    keys.add(normalized).add(stripKanaSuffix(normalized));
  }
  return [...keys];
}

function bigrams(text: string): Set<string> {
  const grams = new Set<string>();
  for (let index = 0; index < text.length - 1; index++) grams.add(text.slice(index, index + 2));
  if (text.length === 1) grams.add(text);
  return grams;
}

function similarity(left: string, right: string): number {
  const a = bigrams(left);
  const b = bigrams(right);
  let shared = 0;
  for (const gram of a) if (b.has(gram)) shared++;
  return (2 * shared) / (a.size + b.size || 1);
}

/** Resolves Japanese place names (and their English or kana forms) to JMA forecast areas. Built once. */
export class PlaceIndex {
  private readonly entries: Entry[] = [];
  private readonly majorCityEntries = new Map<string, Entry>();
  /** Every key of every entry: the exact stages are look-ups, not scans. */
  private readonly byKey = new Map<string, Entry[]>();

  constructor(table: AreaTable) {
    const officeOf = (office: string) => ({
      officeCode: forecastOffice[office] ?? office,
      officeName: table.offices[office]?.name ?? office,
    });
    const class10Entry = (code: string) => {
      const node = table.class10s[code];
      return node?.parent
        ? {
            class10Code: code,
            class10Name: node.name,
            class10EnglishName: node.enName ?? code,
            ...officeOf(node.parent),
          }
        : undefined;
    };
    const add = (
      level: Level,
      code: string,
      node: z.infer<typeof areaNode>,
      area: ReturnType<typeof class10Entry>,
    ) => {
      if (!area) return;
      this.entries.push({
        ...area,
        matchedName: node.name,
        matchedEnglishName: node.enName ?? code,
        matchedLevel: level,
        prefecture: prefectureOf(code),
        keys: keysFor(node.name, node.enName, node.kana),
      });
    };
    for (const [code, node] of Object.entries(table.offices)) {
      const first = node.children?.find((child) => table.class10s[child]);
      add('office', code, node, first ? class10Entry(first) : undefined);
    }
    for (const [code, node] of Object.entries(table.class10s)) add('class10', code, node, class10Entry(code));
    for (const [code, node] of Object.entries(table.class15s)) {
      add('class15', code, node, node.parent ? class10Entry(node.parent) : undefined);
    }
    for (const [code, node] of Object.entries(table.class20s)) {
      const class15 = node.parent ? table.class15s[node.parent] : undefined;
      add('class20', code, node, class15?.parent ? class10Entry(class15.parent) : undefined);
    }
    for (const entry of this.entries) {
      for (const key of entry.keys) {
        const list = this.byKey.get(key) ?? [];
        list.push(entry);
        this.byKey.set(key, list);
      }
    }
    for (const city of majorCities) {
      const entry = this.entries.find(
        (candidate) => candidate.matchedLevel === 'class20' && candidate.matchedName.startsWith(`${city}市`),
      );
      if (entry) this.majorCityEntries.set(normalizePlace(city), entry);
    }
  }

  /** Major-city names of the fallback table that area.json has no city for (should be none). */
  unplacedMajorCities(): string[] {
    return majorCities.filter((city) => !this.majorCityEntries.has(normalizePlace(city)));
  }

  /** Resolves a place name in stages: exact (as typed, then without suffix), prefix, partial, major cities. */
  resolve(input: string): PlaceResolution {
    const trimmed = input.trim();
    if (trimmed === '')
      return { kind: 'invalid', reason: '地名が空です。都道府県名や市区町村名を指定してください。' };
    if (trimmed.length > maxPlaceLength) {
      return {
        kind: 'invalid',
        reason: `地名が長すぎます（${trimmed.length}文字）。${maxPlaceLength}文字以内の地名を1つ指定してください。`,
      };
    }
    let query = normalizePlace(trimmed);
    let prefecture: string | undefined;
    // 森町（静岡県） / 森町 (静岡) — the form our own ambiguity message suggests.
    const qualified = /^(.+?)[（(](.+?)[）)]$/.exec(trimmed);
    if (qualified?.[1] && qualified[2]) {
      const hint = normalizePlace(qualified[2]);
      prefecture = prefectures.find((name) => stripSuffix(normalizePlace(name)) === stripSuffix(hint));
      query = normalizePlace(qualified[1]);
    } else {
      // 静岡県森町: a full prefecture name in front narrows the search.
      const prefix = prefectures.find((name) => query.startsWith(name) && query.length > name.length);
      if (prefix) {
        prefecture = prefix;
        query = query.slice(prefix.length);
      }
    }
    if (foreignPlaces.includes(query)) return { kind: 'foreign', name: trimmed };
    const stripped = stripSuffix(query);
    const pool = prefecture ? this.entries.filter((entry) => entry.prefecture === prefecture) : this.entries;
    const inPool = (entries: Entry[] | undefined) =>
      (entries ?? []).filter((entry) => !prefecture || entry.prefecture === prefecture);
    // What the user typed, suffix included, beats a suffix-stripped match (千代田区 ≠ 千代田町).
    for (const key of [query, stripped]) {
      const found = inPool(this.byKey.get(key));
      if (found.length > 0) return this.decide(found, stripped);
    }
    const stages: Array<(key: string) => boolean> = [
      (key) => query.length >= 2 && key.startsWith(query),
      (key) => query.length >= 2 && key.includes(query),
    ];
    for (const matches of stages) {
      const found = pool.filter((entry) => entry.keys.some(matches));
      if (found.length > 0) return this.decide(found, stripped);
    }
    const city = this.majorCityEntries.get(stripped);
    if (city && (!prefecture || city.prefecture === prefecture)) return { kind: 'found', place: strip(city) };
    return { kind: 'not_found', suggestions: this.suggest(stripped) };
  }

  private decide(found: Entry[], query: string): PlaceResolution {
    const areas = new Map<string, Entry[]>();
    for (const entry of found) {
      const group = areas.get(entry.class10Code) ?? [];
      group.push(entry);
      areas.set(entry.class10Code, group);
    }
    if (areas.size === 1) return { kind: 'found', place: strip(best(found)) };
    const city = this.majorCityEntries.get(query);
    if (city && areas.has(city.class10Code)) return { kind: 'found', place: strip(city) };
    const offices = found.filter((entry) => entry.matchedLevel === 'office');
    if (offices.length === 1 && offices[0]) return { kind: 'found', place: strip(offices[0]) };
    const seen = new Set<string>();
    const candidates: string[] = [];
    for (const entry of [...found].sort(byLevel)) {
      const label = `${baseName(entry.matchedName)}（${entry.prefecture} ${entry.class10Name}）`;
      if (!seen.has(label)) candidates.push(label);
      seen.add(label);
    }
    return { kind: 'ambiguous', candidates: candidates.slice(0, 10) };
  }

  private suggest(query: string): string[] {
    const scored = new Map<string, number>();
    for (const entry of this.entries) {
      // A known name inside the query (横浜みなとみらい) is the strongest hint.
      const score = Math.max(
        ...entry.keys.map((key) => (key.length >= 2 && query.includes(key) ? 1 : similarity(query, key))),
      );
      const label = `${baseName(entry.matchedName)}（${entry.prefecture}）`;
      if (score >= 0.3 && score > (scored.get(label) ?? 0)) scored.set(label, score);
    }
    return [...scored.entries()]
      .sort((left, right) => right[1] - left[1])
      .slice(0, 5)
      .map(([label]) => label);
  }
}

function byLevel(left: Entry, right: Entry): number {
  return levelOrder.indexOf(left.matchedLevel) - levelOrder.indexOf(right.matchedLevel);
}

function best(found: Entry[]): Entry {
  return [...found].sort(byLevel)[0] as Entry;
}

function strip(entry: Entry): ResolvedPlace {
  const { keys: _keys, ...place } = entry;
  return place;
}
