import type { types } from '@slack/bolt';

type KnownBlock = types.KnownBlock;

/** The feedback buttons' action id: presses are recorded (see listeners/actions/feedback.ts). */
export const feedbackActionId = 'answer_feedback';

/** Slack's feedback buttons under an answer (a `context_actions` block of `feedback_buttons`). */
export function feedbackBlocks(): KnownBlock[] {
  return [
    {
      type: 'context_actions',
      elements: [
        {
          type: 'feedback_buttons',
          action_id: feedbackActionId,
          positive_button: {
            text: { type: 'plain_text', text: '👍' },
            accessibility_label: '役に立った',
            value: 'positive',
          },
          negative_button: {
            text: { type: 'plain_text', text: '👎' },
            accessibility_label: '役に立たなかった',
            value: 'negative',
          },
        },
      ],
    },
  ];
}
