import type { Logger } from '@ai-assistant/host-core';
import type { AnswerFeedback } from '@ai-assistant/store';
import type { AllMiddlewareArgs, App, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { feedbackActionId } from '../../slack/feedback-blocks.js';
import { unknownWorkspace } from '../../slack/people.js';

/** One press of an answer's 👍 / 👎, as the operator's record keeps it, with its workspace. */
export type FeedbackPress = AnswerFeedback & { workspace: string };

/** The parts of a `feedback_buttons` press this reads (Bolt has no type for the element's action). */
interface FeedbackBody {
  team?: { id?: string } | null;
  user: { id: string; team_id?: string };
  channel?: { id?: string };
  container?: { message_ts?: string; channel_id?: string };
  message?: { ts?: string; thread_ts?: string; text?: string };
  actions?: Array<{ action_id?: string; value?: string }>;
}

/**
 * A press of the feedback buttons under a streamed answer: recorded with the workspace, the person who
 * pressed, the thread and the answer (its ts and text). Anything else in the payload is ignored; a value
 * other than positive or negative is not recorded.
 */
export function onFeedback(record: (press: FeedbackPress) => Promise<void>, logger: Logger, now: () => Date) {
  return async ({ ack, body }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs) => {
    await ack();
    const press = body as unknown as FeedbackBody;
    const value = press.actions?.find((action) => action.action_id === feedbackActionId)?.value;
    const channel = press.container?.channel_id ?? press.channel?.id;
    const answer = press.container?.message_ts ?? press.message?.ts;
    if ((value !== 'positive' && value !== 'negative') || !channel || !answer) return;
    const entry: FeedbackPress = {
      workspace: press.team?.id ?? press.user.team_id ?? unknownWorkspace,
      thread: `${channel}:${press.message?.thread_ts ?? answer}`,
      answer,
      person: press.user.id,
      value,
      ...(press.message?.text ? { answerText: press.message.text } : {}),
      at: now(),
    };
    try {
      await record(entry);
      logger.info({ workspace: entry.workspace, thread: entry.thread, value }, 'answer feedback recorded');
    } catch (error) {
      logger.warn({ error }, 'could not record answer feedback');
    }
  };
}

/** Registers the feedback buttons' action. */
export function register(
  app: App,
  record: (press: FeedbackPress) => Promise<void>,
  logger: Logger,
  now: () => Date = () => new Date(),
): void {
  app.action<BlockAction>(feedbackActionId, onFeedback(record, logger, now));
}
