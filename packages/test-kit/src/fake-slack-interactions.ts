// What people do in the fake Slack that reaches the app: mentioning it, pressing a message's button,
// submitting a modal, running `/assistant`.
import type { SocketMode } from './fake-slack-delivery.js';
import { botUserId, human, type SlackState } from './fake-slack-state.js';
import type { FakeSlack } from './fake-slack-types.js';

type Interactions = Pick<
  FakeSlack,
  'mention' | 'press' | 'pressInView' | 'submitView' | 'command' | 'shortcut'
>;

/**
 * The people's side of the fake. `push` delivers events; interactions and commands go over
 * `socketMode`, with response_urls under `baseUrl`.
 */
export function interactions(
  state: SlackState,
  { socketMode, push, baseUrl }: { socketMode: SocketMode; push: FakeSlack['push']; baseUrl: () => string },
): Interactions {
  /** The fields every interaction payload carries about who acted, and where. */
  const interactionBy = (user: string) => ({
    team: { id: state.teamOf(user), domain: 'test' },
    user: { id: user, username: user, team_id: state.teamOf(user) },
    api_app_id: 'A0001',
    token: 'verification',
  });
  /** A response_url for the envelope about to be sent. */
  const responseUrl = () => `${baseUrl()}/response/${socketMode.nextEnvelope()}`;

  return {
    async mention(channel, text, options = {}) {
      const user = options.user ?? human;
      const full = `<@${state.workspaces.get(state.teamOf(user))?.botUserId ?? botUserId}> ${text}`;
      const ts = state.say(channel, full, {
        user,
        ...(options.threadTs ? { threadTs: options.threadTs } : {}),
      });
      const envelope = await push({
        type: 'app_mention',
        channel,
        user,
        text: full,
        team: state.teamOf(user),
        ts,
        event_ts: ts,
        ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
        ...(options.files?.length ? { files: options.files, upload: false } : {}),
      });
      return { ts, envelope };
    },
    press({ channel, messageTs, actionId, value, user = human }) {
      const message = state.messages(channel).find((entry) => entry.ts === messageTs);
      return socketMode.send('interactive', {
        type: 'block_actions',
        ...interactionBy(user),
        container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: false },
        trigger_id: `trigger-${socketMode.nextEnvelope()}`,
        channel: { id: channel, name: channel },
        message: { ...message, ts: messageTs },
        response_url: responseUrl(),
        actions: [
          {
            // The element's own type (`button`, or `feedback_buttons` under an answer), as Slack sends it.
            type: elementType(message?.blocks, actionId),
            action_id: actionId,
            block_id: 'approval',
            value,
            action_ts: String(Date.now() / 1000),
          },
        ],
      });
    },
    pressInView({ actionId, value, user = human, viewType = 'home', selected, values, callbackId }) {
      const at = String(Date.now() / 1000);
      // A select sends the option chosen; a button its value (Slack's block_actions payloads).
      const action =
        selected !== undefined
          ? {
              type: 'static_select',
              action_id: actionId,
              block_id: 'view',
              selected_option: { text: { type: 'plain_text', text: selected }, value: selected },
              action_ts: at,
            }
          : { type: 'button', action_id: actionId, block_id: 'view', value, action_ts: at };
      return socketMode.send('interactive', {
        type: 'block_actions',
        ...interactionBy(user),
        container: { type: 'view', view_id: 'VHOME0001' },
        trigger_id: `trigger-${socketMode.nextEnvelope()}`,
        view: {
          id: 'VHOME0001',
          type: viewType,
          hash: 'hash-1',
          ...(callbackId ? { callback_id: callbackId } : {}),
          // A modal's inputs as they stand when the button is pressed.
          ...(values ? { state: stateOf(values) } : {}),
        },
        actions: [action],
      });
    },
    submitView({ callbackId, privateMetadata, values, user = human }) {
      return socketMode.send('interactive', {
        type: 'view_submission',
        ...interactionBy(user),
        trigger_id: `trigger-${socketMode.nextEnvelope()}`,
        view: {
          id: 'V0001',
          type: 'modal',
          callback_id: callbackId,
          private_metadata: privateMetadata,
          state: stateOf(values),
        },
      });
    },
    shortcut({ channel, messageTs, callbackId, user = human }) {
      const message = state.messages(channel).find((entry) => entry.ts === messageTs);
      // As Slack: a message shortcut (`message_action`) carries the message, its channel and a trigger.
      return socketMode.send('interactive', {
        type: 'message_action',
        ...interactionBy(user),
        callback_id: callbackId,
        trigger_id: `trigger-${socketMode.nextEnvelope()}`,
        message_ts: messageTs,
        message: { type: 'message', ...message, ts: messageTs },
        channel: { id: channel, name: channel },
        response_url: responseUrl(),
        action_ts: String(Date.now() / 1000),
      });
    },
    command(text, options = {}) {
      return socketMode.send('slash_commands', {
        token: 'verification',
        team_id: state.teamOf(options.user ?? human),
        api_app_id: 'A0001',
        channel_id: options.channel ?? 'C0CMD',
        user_id: options.user ?? human,
        command: '/assistant',
        text,
        response_url: responseUrl(),
        trigger_id: 'trigger',
      });
    },
  };
}

/** The type of the element with `actionId` in a message's blocks (default `button`). */
function elementType(blocks: unknown[] | undefined, actionId: string): string {
  for (const block of (blocks ?? []) as Array<{ elements?: Array<{ type?: string; action_id?: string }> }>)
    for (const element of block.elements ?? [])
      if (element.action_id === actionId && element.type) return element.type;
  return 'button';
}

/** A view's `state` as Slack sends it: block id → `{ value: element state }` (text given as a string). */
function stateOf(values: Record<string, string | Record<string, unknown>>) {
  return {
    values: Object.fromEntries(
      Object.entries(values).map(([block, value]) => [
        block,
        { value: typeof value === 'string' ? { type: 'plain_text_input', value } : value },
      ]),
    ),
  };
}
