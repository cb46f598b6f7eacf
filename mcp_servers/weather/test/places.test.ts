import { describe, expect, it } from 'vitest';
import { type AreaTable, PlaceIndex } from '../src/places/resolve.js';
import { readFixture } from './jma-fixtures.js';

describe('place names against the real area.json', () => {
  const index = new PlaceIndex(readFixture('area.json') as AreaTable);
  const found = (input: string) => {
    const result = index.resolve(input);
    if (result.kind !== 'found') throw new Error(`${input}: ${JSON.stringify(result)}`);
    return result.place;
  };

  it.each([
    ['東京', '130000', '130010'],
    ['東京都', '130000', '130010'],
    ['大阪', '270000', '270000'],
    ['Osaka', '270000', '270000'],
    ['おおさか', '270000', '270000'],
    ['オオサカ', '270000', '270000'],
    ['ＴＯＫＹＯ', '130000', '130010'],
    ['横浜', '140000', '140010'],
    ['名古屋', '230000', '230010'],
    ['札幌', '016000', '016010'],
    ['那覇', '471000', '471010'],
    ['八丈島', '130000', '130030'],
    ['石垣', '474000', '474010'],
    ['稚内', '011000', '011000'],
    ['帯広', '014100', '014030'],
    ['奄美市', '460100', '460040'],
    ['静岡県森町', '220000', '220040'],
    ['森町（北海道）', '017000', '017010'],
    ['仙台', '040000', '040010'],
    ['千代田区', '130000', '130010'],
    ['群馬県千代田町', '100000', '100010'],
    ['新宿区', '130000', '130010'],
  ])('%s → office %s, area %s', (input, office, class10) => {
    const place = found(input);
    expect([place.officeCode, place.class10Code]).toEqual([office, class10]);
  });

  it('treats a municipal name shared across Japan as ambiguous and names the prefectures', () => {
    const result = index.resolve('森町');
    expect(result.kind).toBe('ambiguous');
    if (result.kind !== 'ambiguous') return;
    expect(result.candidates.some((candidate) => candidate.includes('静岡県'))).toBe(true);
    expect(result.candidates.some((candidate) => candidate.includes('北海道'))).toBe(true);
  });

  it('says plainly when a place is outside Japan', () => {
    expect(index.resolve('ロンドン')).toEqual({ kind: 'foreign', name: 'ロンドン' });
    expect(index.resolve('London').kind).toBe('foreign');
  });

  it('rejects an empty or over-long input with a reason', () => {
    expect(index.resolve('').kind).toBe('invalid');
    expect(index.resolve('   ').kind).toBe('invalid');
    const long = index.resolve('あ'.repeat(200));
    expect(long.kind).toBe('invalid');
    if (long.kind === 'invalid') expect(long.reason).toContain('200文字');
  });

  it('offers up to five suggestions for an unknown place', () => {
    const result = index.resolve('横浜みなとみらい');
    expect(result.kind).toBe('not_found');
    if (result.kind !== 'not_found') return;
    expect(result.suggestions.length).toBeGreaterThan(0);
    expect(result.suggestions.length).toBeLessThanOrEqual(5);
    expect(result.suggestions.join()).toContain('横浜');
  });

  it('places every major city of its fallback table', () => {
    expect(index!.unplacedMajorCities()).toEqual([]);
  });
});
