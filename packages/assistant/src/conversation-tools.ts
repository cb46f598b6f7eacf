import { HostError } from '@ai-assistant/chat-types';
import type { FilledPrompt, HostAdditions } from '@ai-assistant/host-core';

type Tool = HostAdditions['tools'][number];

/** One message of a past conversation: a person's message, or the final answer given to it. */
export interface PastMessage {
  role: 'user' | 'assistant';
  /** Who wrote a user message; whom an answer was for. */
  person?: string;
  text: string;
  at: Date;
}

/** One of the asker's conversations: where it was and what was said, oldest first. */
export interface PastConversation {
  /** Where it happened, in the app's words (e.g. "<#C123> thread 1700000000.000100"). */
  place: string;
  lastAt: Date;
  messages: PastMessage[];
}

/** A thread chosen for a summary: its place and every message the app recorded there. */
export interface RecordedThread {
  place: string;
  messages: PastMessage[];
}

/** Counts of the conversations a workspace's app recorded: never any text. */
export interface ConversationCounts {
  /** The asker's threads and messages (theirs and the answers to them). */
  yourThreads: number;
  yourMessages: number;
  yourLastAt?: Date;
  /** Every recorded thread and message of the workspace. */
  workspaceThreads: number;
  workspaceMessages: number;
  /** How long they are kept, when the operator set a retention. */
  retentionDays?: number;
}

/** A person refused a conversation they may not read (another channel's, one they took no part in). */
export class ConversationRefused extends HostError {
  override name = 'ConversationRefused';
  constructor(message: string) {
    super('CONVERSATION_REFUSED', message);
  }
}

/**
 * What the app recorded of one asker's conversations in their workspace (the Slack app: its conversation
 * log). Every answer is the asker's own, and never crosses workspaces: the app builds one per turn.
 */
export interface ConversationSource {
  /** The asker's own recent conversations, newest first: their messages and the answers given to them. */
  mine(options: { threads: number; messagesPerThread: number }): Promise<PastConversation[]>;
  /**
   * A thread the asker took part in, whole (`ref` in the app's terms: a message link, a thread id);
   * the current thread, or else their latest, when `ref` is empty. Throws {@link ConversationRefused}.
   */
  thread(ref: string | undefined): Promise<RecordedThread>;
  counts(): Promise<ConversationCounts>;
}

const conversationNames = {
  tool: 'get_conversation_history',
  prompt: 'summarize_conversation',
  resource: 'host://conversations',
} as const;

const clamp = (value: unknown, low: number, high: number, fallback: number) =>
  typeof value === 'number' && Number.isFinite(value)
    ? Math.max(low, Math.min(high, Math.floor(value)))
    : fallback;

/** The longest text of one message the history tool returns (the rest is cut, and says so). */
const maxToolMessage = 2000;

const historyTool: Tool = {
  name: conversationNames.tool,
  description:
    "Returns the asking user's own recent conversations with this assistant in this workspace: what they wrote and the answers they were given, newest conversation first. Never anyone else's messages.",
  inputSchema: {
    type: 'object',
    properties: {
      conversations: { type: 'integer', minimum: 1, maximum: 20, description: 'How many (default 5)' },
      messages_per_conversation: {
        type: 'integer',
        minimum: 1,
        maximum: 50,
        description: 'The last messages of each (default 10)',
      },
    },
  },
  annotations: { readOnlyHint: true, openWorldHint: false, title: 'Your conversation history' },
};

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… [cut]` : text);

function messageLine(message: PastMessage, max: number): string {
  const who = message.role === 'assistant' ? 'assistant' : message.person ? `user ${message.person}` : 'user';
  return `[${message.at.toISOString()}] ${who}: ${cut(message.text, max)}`;
}

function historyText(conversations: PastConversation[]): string {
  if (conversations.length === 0) return 'No earlier conversations with this user are recorded.';
  return conversations
    .map(
      (conversation, index) =>
        `Conversation ${index + 1} (${conversation.place}, last ${conversation.lastAt.toISOString()}):\n${conversation.messages
          .map((message) => messageLine(message, maxToolMessage))
          .join('\n')}`,
    )
    .join('\n\n');
}

/** The host's conversation tool, `host__get_conversation_history`, over one asker's {@link ConversationSource}. */
async function history(source: ConversationSource, args: Record<string, unknown>) {
  const conversations = await source.mine({
    threads: clamp(args.conversations, 1, 20, 5),
    messagesPerThread: clamp(args.messages_per_conversation, 1, 50, 10),
  });
  return {
    content: [{ type: 'text', text: historyText(conversations) }],
    structuredContent: {
      conversations: conversations.map((conversation) => ({
        place: conversation.place,
        lastAt: conversation.lastAt.toISOString(),
        messages: conversation.messages.map((message) => ({
          role: message.role,
          at: message.at.toISOString(),
          text: cut(message.text, maxToolMessage),
        })),
      })),
    },
    isError: false,
  };
}

/** The host's summary prompt, `host/summarize_conversation`. */
const summaryPrompt: HostAdditions['prompts'][number] = {
  name: conversationNames.prompt,
  title: 'Summarize a conversation',
  description:
    'Summarises a thread you took part in: the current one, a thread of this channel by its link, or else your latest.',
  arguments: [
    {
      name: 'thread',
      description: 'A link to a message of the thread (optional; default: this thread or your latest)',
      required: false,
    },
  ],
};

/** The longest thread text a summary prompt carries (its newest part is kept). */
const maxPromptText = 60_000;

/** Fills the summary prompt with the thread's recorded messages. Throws {@link ConversationRefused}. */
async function summaryOf(source: ConversationSource, ref: string | undefined): Promise<FilledPrompt> {
  const thread = await source.thread(ref?.trim() || undefined);
  if (thread.messages.length === 0) throw new ConversationRefused(`Nothing is recorded of ${thread.place}.`);
  let transcript = thread.messages.map((message) => messageLine(message, 4000)).join('\n');
  if (transcript.length > maxPromptText) transcript = `…\n${transcript.slice(-maxPromptText)}`;
  return {
    description: `A summary of ${thread.place}`,
    messages: [
      {
        role: 'user',
        content: `Summarise this conversation (${thread.place}): its question, what was found or decided, and anything left open. Answer in the language the conversation was held in.\n\n<conversation>\n${transcript}\n</conversation>`,
      },
    ],
  };
}

/** The host's conversation resource: counts only, never text. */
const conversationResource: HostAdditions['resources'][number] = {
  uri: conversationNames.resource,
  name: 'conversations',
  description: 'How many conversations are recorded, yours and the workspace’s (counts only)',
  mimeType: 'application/json',
};

/** The resource's text: the counts as JSON. */
async function countsText(source: ConversationSource): Promise<string> {
  const counts = await source.counts();
  return JSON.stringify({
    yourThreads: counts.yourThreads,
    yourMessages: counts.yourMessages,
    ...(counts.yourLastAt ? { yourLastAt: counts.yourLastAt.toISOString() } : {}),
    workspaceThreads: counts.workspaceThreads,
    workspaceMessages: counts.workspaceMessages,
    ...(counts.retentionDays !== undefined ? { retentionDays: counts.retentionDays } : {}),
  });
}

/**
 * What one asker's {@link ConversationSource} adds to their view as the host's own: the tool
 * `host__get_conversation_history`, the prompt `host/summarize_conversation` and the resource
 * `host://conversations` (counts only). Calls take the path of every other tool of the view.
 */
export function conversationAdditions(source: ConversationSource): HostAdditions {
  return {
    tools: [historyTool],
    callTool: (_tool, args) => history(source, args),
    resources: [conversationResource],
    readResource: () => countsText(source),
    prompts: [summaryPrompt],
    getPrompt: (_name, args) => summaryOf(source, args.thread),
  };
}
