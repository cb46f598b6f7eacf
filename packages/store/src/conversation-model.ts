/** One message of a conversation: a person's message, or the final answer to one. */
export interface ConversationMessage {
  /** The app's id of the message, unique in its thread (the chat app's own, a message's timestamp say). */
  id: string;
  role: 'user' | 'assistant';
  /** Who wrote a user message; whom an answer was for. */
  person?: string;
  text: string;
  /** When it was said: orders the thread, and retention counts from it. */
  at: Date;
  /** An answer's tools (model-facing names): the thread's next question keeps them offered. */
  tools?: string[];
}

/** A thread as the store keeps it: whether the app is in it, and whether its earlier messages were read. */
export interface ThreadMembership {
  /** The app took part in the thread only now. */
  joined: boolean;
  /** What was said before the app joined has been read (or there was nothing before). */
  historyRead: boolean;
}

/** One of a person's own threads: their messages and the answers they were given, oldest first. */
export interface PersonConversation {
  thread: string;
  lastAt: Date;
  messages: ConversationMessage[];
}

/** Counts of recorded conversations: a person's own, and their workspace's. */
export interface ConversationTally {
  yourThreads: number;
  yourMessages: number;
  yourLastAt?: Date;
  workspaceThreads: number;
  workspaceMessages: number;
}

/** A person's 👍 or 👎 on one final answer. */
export interface AnswerFeedback {
  thread: string;
  /** The answer's own id (the chat app's id of the answer message). */
  answer: string;
  person: string;
  value: 'positive' | 'negative';
  /** The answer's text when it was rated (cut at 4 000 characters), when the app knows it. */
  answerText?: string;
  at: Date;
}

/** The longest text kept of one message (the chat app's own limit for one message). */
export const maxMessageText = 40_000;
/** The most messages one read returns. */
export const maxThreadRead = 500;

/** A stored message row as the app sees it. */
export function toMessage(row: {
  message_id: string;
  role: 'user' | 'assistant';
  person_id: string | null;
  text: string;
  at: Date;
  tools?: string | null;
}): ConversationMessage {
  const tools = row.tools ? (JSON.parse(row.tools) as string[]) : undefined;
  return {
    id: row.message_id,
    role: row.role,
    ...(row.person_id ? { person: row.person_id } : {}),
    text: row.text,
    at: new Date(row.at),
    ...(tools && tools.length > 0 ? { tools } : {}),
  };
}

/** The most tool names an answer keeps (a turn rarely calls more). */
export const maxAnswerTools = 20;
