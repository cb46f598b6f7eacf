import type { Logger } from '@ai-assistant/host-core';
import type { App } from '@slack/bolt';

type WebClient = App['client'];

/** A button a person pressed on a message of ours, as the listeners hand it on. */
export interface ButtonPress {
  /** The button's value: the id of what it answers. */
  id: string;
  action: string;
  user: string;
  channel: string;
  triggerId: string;
  /** The client Bolt authorized for the press (its workspace's token). */
  client?: WebClient;
}

/** Tells the person who pressed (only them) why the press did nothing. Failures are logged, never thrown. */
export async function tellPrivately(
  client: WebClient,
  press: Pick<ButtonPress, 'channel' | 'user'>,
  text: string,
  logger: Logger,
): Promise<void> {
  await client.chat
    .postEphemeral({ channel: press.channel, user: press.user, text })
    .catch((error: unknown) => {
      logger.warn({ error: String(error) }, 'could not answer a button press');
    });
}
