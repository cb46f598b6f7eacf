import { describe, expect, it } from 'vitest';
import { soundSkeleton, terms, vocabularyTerms } from './words.js';

describe('#42 words as the tool index reads them', () => {
  it('splits Japanese as the language does and keeps Latin product names whole', () => {
    expect(terms('今のStripeの残高いくら？')).toEqual(['stripe', '残高', 'いくら']);
    // The old two-character pieces made `st`, `tr`… of Stripe and matched nothing.
    expect(terms('先週マージされたPRを一覧にして')).toEqual(expect.arrayContaining(['マージ', 'pr', '一覧']));
  });

  it('drops stop words and stems English lightly, in questions and descriptions alike', () => {
    expect(terms('Can you tell me what issues are open?')).toEqual(['issue', 'open']);
    expect(terms('listPullRequests get_pull_request_files')).toEqual(
      expect.arrayContaining(['list', 'pull', 'request', 'file']),
    );
    // A product name in camel case is both the word and its parts.
    expect(terms('GitHub')).toEqual(['github', 'git', 'hub']);
    expect(terms('news')).toEqual(['news']);
  });

  it('the vocabulary gives the words descriptions use for what people say', () => {
    expect(vocabularyTerms('プルリク見せて')).toEqual(expect.arrayContaining(['pull', 'request']));
    expect(vocabularyTerms('先月のチャージバック')).toContain('dispute');
    expect(vocabularyTerms('Put a thumbs-up on it')).toContain('reaction');
  });

  it('katakana loanwords sound like the English they came from', () => {
    for (const [katakana, english] of [
      ['パイプライン', 'pipeline'],
      ['ターゲティング', 'targeting'],
      ['スクリーンショット', 'screenshot'],
      ['ダッシュボード', 'dashboard'],
      ['マイグレーション', 'migration'],
      ['フィルタ', 'filter'],
      ['チャンネル', 'channel'],
      ['ワークフロー', 'workflow'],
    ])
      expect(soundSkeleton(katakana as string), `${katakana} ~ ${english}`).toBe(
        soundSkeleton(english as string),
      );
    expect(soundSkeleton('パイプライン')).not.toBe(soundSkeleton('playbook'));
  });
});
