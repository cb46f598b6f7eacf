import type { HostAdditions } from '@ai-assistant/host-core';

/** What the model proposes: when, what to ask, and where the answers go. */
export interface ScheduleProposal {
  /** Words ("毎朝8時", "every weekday at 9") or five cron fields, read in the asker's time zone. */
  when: string;
  /** The question each run asks, as the asker would. */
  question: string;
  /** The channel to post in (the app's id); default: where the asker is. */
  channel?: string;
  /**
   * Tools (as offered to the model) each run will need that ask before they run: offered to the asker
   * to approve once, for this schedule only. The app keeps only those of the asker's own that ask.
   */
  tools?: string[];
}

/**
 * Where one asker's proposals go (the Slack app: a message with Confirm and Cancel that only they may
 * press). Nothing is scheduled until they confirm.
 */
export interface ScheduleProposer {
  /** Checks the proposal and asks the asker to confirm it; returns what the model is told. Throws with a reason the model can read. */
  propose(proposal: ScheduleProposal): Promise<string>;
}

const proposeTool: HostAdditions['tools'][number] = {
  name: 'propose_schedule',
  description:
    'Proposes a recurring schedule (定期実行: 毎朝, 毎週, 平日, every morning, every Monday): a question asked again and again as the asking user, each answer posted in a channel. The user must confirm it with a button before it exists; say so in your answer. Times are read in the user’s own time zone.',
  inputSchema: {
    type: 'object',
    properties: {
      when: {
        type: 'string',
        description:
          'When it runs: words such as "毎朝8時", "平日 9:30", "毎週月曜 10時", "every weekday at 8am", or five cron fields ("0 8 * * 1-5").',
      },
      question: {
        type: 'string',
        description: 'The question each run asks, complete on its own, without the schedule words.',
      },
      channel: {
        type: 'string',
        description: 'The channel id to post in (optional; default: the current conversation).',
      },
      approve_tools: {
        type: 'array',
        items: { type: 'string' },
        maxItems: 10,
        description:
          'Tools (names as offered to you) each run will need that change things and ask for approval; the user may approve them once for this schedule. Name only tools the question needs (optional).',
      },
    },
    required: ['when', 'question'],
  },
  // It only proposes: the person's button press is what creates the schedule.
  annotations: { readOnlyHint: true, openWorldHint: false, title: 'Propose a schedule' },
};

/** What an asker's {@link ScheduleProposer} adds to their view: the tool `host__propose_schedule`. */
export function scheduleAdditions(proposer: ScheduleProposer): HostAdditions {
  return {
    tools: [proposeTool],
    async callTool(_name, args) {
      const when = typeof args.when === 'string' ? args.when : '';
      const question = typeof args.question === 'string' ? args.question.trim() : '';
      const channel =
        typeof args.channel === 'string' && args.channel.trim() ? args.channel.trim() : undefined;
      const tools = Array.isArray(args.approve_tools)
        ? args.approve_tools.filter((name): name is string => typeof name === 'string').slice(0, 10)
        : [];
      if (!when.trim() || !question)
        return {
          content: [{ type: 'text', text: 'Both `when` and `question` are required.' }],
          isError: true,
        };
      try {
        const text = await proposer.propose({
          when,
          question,
          ...(channel ? { channel } : {}),
          ...(tools.length > 0 ? { tools } : {}),
        });
        return { content: [{ type: 'text', text }], isError: false };
      } catch (error) {
        return {
          content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
          isError: true,
        };
      }
    },
    resources: [],
    readResource: async (uri) => {
      throw new Error(`no resource ${uri}`);
    },
    prompts: [],
    getPrompt: async (name) => {
      throw new Error(`no prompt ${name}`);
    },
  };
}

/** Several apps' additions as one: each tool, resource and prompt answered by the one that offers it. */
export function combineAdditions(parts: HostAdditions[]): HostAdditions | undefined {
  if (parts.length <= 1) return parts[0];
  const owner = <T>(list: (part: HostAdditions) => T[], match: (item: T) => boolean) =>
    parts.find((part) => list(part).some(match));
  return {
    tools: parts.flatMap((part) => part.tools),
    callTool: (name, args) => {
      const part = owner(
        (p) => p.tools,
        (tool) => tool.name === name,
      );
      if (!part) throw new Error(`no host tool ${name}`);
      return part.callTool(name, args);
    },
    resources: parts.flatMap((part) => part.resources),
    readResource: (uri) => {
      const part = owner(
        (p) => p.resources,
        (resource) => resource.uri === uri,
      );
      if (!part) throw new Error(`no host resource ${uri}`);
      return part.readResource(uri);
    },
    prompts: parts.flatMap((part) => part.prompts),
    getPrompt: (name, args) => {
      const part = owner(
        (p) => p.prompts,
        (prompt) => prompt.name === name,
      );
      if (!part) throw new Error(`no host prompt ${name}`);
      return part.getPrompt(name, args);
    },
  };
}
