import type { FakeReply } from './fake-vendor.js';

/**
 * Words that mean the same thing in Japanese and English, one dimension each: the fake's vectors carry
 * this much meaning, so a test can show a question reaching a tool it shares no word with.
 */
const concepts: ReadonlyArray<readonly string[]> = [
  ['air quality', 'pollution', 'pm2.5', 'ozone', '空気', '大気', '汚染'],
  ['balance', 'funds', 'money', '残高', 'お金', '残って'],
  ['pull request', 'merge', 'プルリク', 'マージ'],
  ['calendar', 'meeting', 'event', '予定', '会議'],
  ['email', 'mail', 'inbox', 'メール'],
  ['issue', 'ticket', 'bug', '課題', 'チケット'],
  ['deploy', 'release', 'デプロイ', 'リリース'],
  ['error', 'exception', 'crash', 'エラー', '障害'],
  ['weather', 'forecast', '天気', '予報'],
  ['invoice', 'billing', '請求'],
  ['refund', '返金'],
  ['customer', '顧客'],
  ['file', 'document', 'ファイル', '資料'],
  ['translate', '翻訳'],
  ['map', 'route', 'directions', '地図', '経路', '道順'],
  ['database', 'query', 'sql', 'データベース'],
];
/** Dimensions for words no concept knows (hashed), weighted lightly: they tell texts apart, little more. */
const wordBuckets = 16;
const wordWeight = 0.15;
export const fakeEmbeddingDimensions = concepts.length + wordBuckets + 1;

/** The OpenAI embeddings endpoint's documented limits: 2048 inputs per request, none empty. */
export const maxEmbeddingInputs = 2048;

/** A deterministic unit vector for `text`: its concepts, then its other words hashed, lightly. */
export function fakeEmbedding(text: string): number[] {
  const vector: number[] = new Array<number>(fakeEmbeddingDimensions).fill(0);
  const lower = text.toLowerCase();
  concepts.forEach((words, dimension) => {
    if (words.some((word) => lower.includes(word))) vector[dimension] = 1;
  });
  for (const word of lower.match(/[a-z][a-z0-9]+/g) ?? []) {
    let hash = 0;
    for (const character of word) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
    const bucket = concepts.length + (hash % wordBuckets);
    vector[bucket] = (vector[bucket] ?? 0) + wordWeight;
  }
  if (!vector.some((value) => value > 0)) vector[fakeEmbeddingDimensions - 1] = 1;
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

function invalid(message: string, param: string | null): FakeReply {
  return { status: 400, json: { error: { message, type: 'invalid_request_error', param, code: null } } };
}

/** `POST /v1/embeddings` as OpenAI answers it (and the compatible servers that copy it). */
export function embeddingsReply(body: Record<string, unknown>): FakeReply {
  if (typeof body.model !== 'string' || body.model === '')
    return invalid('you must provide a model parameter', 'model');
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.some((text) => typeof text !== 'string'))
    return invalid("'$.input' is invalid: expected a string or an array of strings.", 'input');
  if (texts.length === 0 || texts.some((text) => text === ''))
    return invalid("'$.input' is invalid: an input cannot be empty.", 'input');
  if (texts.length > maxEmbeddingInputs)
    return invalid(`'$.input' is invalid: at most ${maxEmbeddingInputs} inputs per request.`, 'input');
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64')
    return invalid(
      `Invalid value for 'encoding_format': expected 'float' or 'base64', got '${String(format)}'.`,
      'encoding_format',
    );
  const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  return {
    json: {
      object: 'list',
      data: texts.map((text, index) => {
        const vector = fakeEmbedding(text);
        return {
          object: 'embedding',
          index,
          embedding:
            format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
        };
      }),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}
