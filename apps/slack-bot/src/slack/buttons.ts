/** A Block Kit button (its text cut to Slack's 75 characters). */
export const button = (text: string, actionId: string, value: string, style?: 'primary' | 'danger') => ({
  type: 'button' as const,
  text: { type: 'plain_text' as const, text: text.slice(0, 75) },
  action_id: actionId,
  value,
  ...(style ? { style } : {}),
});
