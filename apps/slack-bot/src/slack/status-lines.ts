import { CancelledError, type ChatEvent } from '@ai-assistant/host-core';
import { LLMProviderError } from '@ai-assistant/llm-providers';
import { escapeSlackText } from '../format/slack-text.js';

// The short lines a thread shows while an answer is made, and when it could not be.

export const interruptedText = '⚠️ 再起動のため中断しました。もう一度お試しください。';
export const tooSlowText = '⚠️ 時間内に回答できませんでした。質問を分けるか、もう一度お試しください。';

/** The status line shown while a tool runs: its server's `status_message`, else a neutral line (escaped). */
export function toolStatus(event: Extract<ChatEvent, { type: 'tool_start' }>): string {
  if (event.statusMessage) return escapeSlackText(event.statusMessage);
  return `🔧 \`${escapeSlackText(event.tool ?? event.name)}\` を実行しています…`;
}

/** The status line of a tool's progress: "🔧 tool: 40% — message" (escaped; no % without a total). */
export function progressStatus(
  event: Extract<ChatEvent, { type: 'tool_progress' }>,
  tool: string = event.name,
): string {
  const amount =
    event.total && event.total > 0
      ? `${Math.min(100, Math.max(0, Math.round((event.progress / event.total) * 100)))}%`
      : `${event.progress}`;
  const message = event.message
    ? ` — ${escapeSlackText(event.message.replace(/\s+/g, ' ').slice(0, 150))}`
    : '';
  return `🔧 \`${escapeSlackText(tool)}\`: ${amount}${message}`;
}

/** Plain words for a failure, to post in the thread. Detail goes to the log. */
export function failureText(error: unknown, shuttingDown = false): string {
  if (error instanceof CancelledError) return shuttingDown ? interruptedText : tooSlowText;
  if (error instanceof LLMProviderError) {
    switch (error.code) {
      case 'RATE_LIMITED':
        return '⚠️ AI サービスが混み合っています。少し時間をおいてからもう一度お試しください。';
      case 'TIMEOUT':
      case 'CONNECTION':
      case 'SERVER':
        return '⚠️ AI サービスに接続できませんでした。しばらくしてからもう一度お試しください。';
      case 'CONTEXT_TOO_LONG':
        return '⚠️ このスレッドは長すぎて AI が読み切れません。新しいスレッドで質問してください。';
      default:
        return `⚠️ AI サービスがエラーを返しました（${escapeSlackText(error.userMessage)}）`;
    }
  }
  return '⚠️ 申し訳ありません、回答の作成中にエラーが起きました。もう一度お試しください。';
}
