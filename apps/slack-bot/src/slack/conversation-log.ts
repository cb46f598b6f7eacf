import type {
  ConversationMessage,
  ConversationTally,
  PersonConversation,
  ThreadMembership,
} from '@ai-assistant/store';

/**
 * Where the bot keeps the threads it takes part in and what was said there (people's messages and final
 * answers, never tool steps): the store's `conversations`, or {@link MemoryConversationLog} without one.
 */
export interface ConversationLog {
  join(
    workspace: string,
    thread: string,
    options: { historyRead: boolean; at: Date },
  ): Promise<ThreadMembership>;
  isMember(workspace: string, thread: string): Promise<boolean>;
  markHistoryRead(workspace: string, thread: string): Promise<void>;
  record(workspace: string, thread: string, message: ConversationMessage): Promise<void>;
  edit(workspace: string, thread: string, id: string, text: string): Promise<boolean>;
  remove(workspace: string, thread: string, id: string): Promise<boolean>;
  thread(workspace: string, thread: string, limit: number): Promise<ConversationMessage[]>;
  /** A person's own recent conversations in a workspace (their messages and the answers to them). */
  ofPerson(
    workspace: string,
    person: string,
    options: { threads?: number; messagesPerThread?: number },
  ): Promise<PersonConversation[]>;
  counts(workspace: string, person: string): Promise<ConversationTally>;
  prune(before: Date): Promise<number>;
}

interface MemoryThread {
  historyRead: boolean;
  lastAt: number;
  messages: Map<string, ConversationMessage>;
}

const order = (left: ConversationMessage, right: ConversationMessage) =>
  left.at.getTime() - right.at.getTime() || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);

/**
 * The conversation log of a bot without a store: this process's memory, bounded (the `threads` most
 * recently used, `perThread` messages each), gone on restart.
 */
export class MemoryConversationLog implements ConversationLog {
  private readonly threads = new Map<string, MemoryThread>();

  constructor(
    private readonly capacity = 10_000,
    private readonly perThread = 200,
  ) {}

  private find(workspace: string, thread: string): MemoryThread | undefined {
    const key = `${workspace}\u0000${thread}`;
    const found = this.threads.get(key);
    if (found) {
      // Least recently used goes first.
      this.threads.delete(key);
      this.threads.set(key, found);
    }
    return found;
  }

  async join(workspace: string, thread: string, options: { historyRead: boolean; at: Date }) {
    const found = this.find(workspace, thread);
    if (found) return { joined: false, historyRead: found.historyRead };
    this.threads.set(`${workspace}\u0000${thread}`, {
      historyRead: options.historyRead,
      lastAt: options.at.getTime(),
      messages: new Map(),
    });
    if (this.threads.size > this.capacity) {
      const oldest = this.threads.keys().next().value;
      if (oldest !== undefined) this.threads.delete(oldest);
    }
    return { joined: true, historyRead: options.historyRead };
  }

  async isMember(workspace: string, thread: string) {
    return this.find(workspace, thread) !== undefined;
  }

  async markHistoryRead(workspace: string, thread: string) {
    const found = this.find(workspace, thread);
    if (found) found.historyRead = true;
  }

  async record(workspace: string, thread: string, message: ConversationMessage) {
    const found = this.find(workspace, thread);
    if (!found) return;
    found.messages.set(message.id, { ...message });
    found.lastAt = Math.max(found.lastAt, message.at.getTime());
    if (found.messages.size > this.perThread) {
      const oldest = [...found.messages.values()].sort(order)[0];
      if (oldest) found.messages.delete(oldest.id);
    }
  }

  async edit(workspace: string, thread: string, id: string, text: string) {
    const message = this.find(workspace, thread)?.messages.get(id);
    if (!message) return false;
    message.text = text;
    return true;
  }

  async remove(workspace: string, thread: string, id: string) {
    return this.find(workspace, thread)?.messages.delete(id) ?? false;
  }

  async thread(workspace: string, thread: string, limit: number) {
    const found = this.find(workspace, thread);
    if (!found || limit <= 0) return [];
    return [...found.messages.values()].sort(order).slice(-limit);
  }

  /** The threads of one workspace, with their keys. */
  private *of(workspace: string): Generator<[string, MemoryThread]> {
    const prefix = `${workspace}\u0000`;
    for (const [key, thread] of this.threads)
      if (key.startsWith(prefix)) yield [key.slice(prefix.length), thread];
  }

  async ofPerson(
    workspace: string,
    person: string,
    options: { threads?: number; messagesPerThread?: number },
  ) {
    const conversations: PersonConversation[] = [];
    for (const [thread, found] of this.of(workspace)) {
      const messages = [...found.messages.values()]
        .filter((message) => message.person === person)
        .sort(order);
      const last = messages.at(-1);
      if (last)
        conversations.push({
          thread,
          lastAt: last.at,
          messages: messages.slice(-(options.messagesPerThread ?? 20)),
        });
    }
    return conversations
      .sort((left, right) => right.lastAt.getTime() - left.lastAt.getTime())
      .slice(0, options.threads ?? 10);
  }

  async counts(workspace: string, person: string) {
    const tally: ConversationTally = {
      yourThreads: 0,
      yourMessages: 0,
      workspaceThreads: 0,
      workspaceMessages: 0,
    };
    for (const [, found] of this.of(workspace)) {
      if (found.messages.size === 0) continue;
      tally.workspaceThreads++;
      tally.workspaceMessages += found.messages.size;
      let mine = 0;
      for (const message of found.messages.values())
        if (message.person === person) {
          mine++;
          if (!tally.yourLastAt || message.at > tally.yourLastAt) tally.yourLastAt = message.at;
        }
      if (mine > 0) tally.yourThreads++;
      tally.yourMessages += mine;
    }
    return tally;
  }

  async prune(before: Date) {
    let count = 0;
    for (const [key, thread] of this.threads) {
      for (const [id, message] of thread.messages)
        if (message.at < before) {
          thread.messages.delete(id);
          count++;
        }
      if (thread.lastAt < before.getTime()) this.threads.delete(key);
    }
    return count;
  }
}
