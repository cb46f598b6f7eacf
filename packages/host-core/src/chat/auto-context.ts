import { CancelledError } from '../errors.js';
import { firstRequiredString } from '../tools/validate-arguments.js';
import type { TurnTools } from './turn-tools.js';

/**
 * Runs every server's `auto_context_tool` with the person's message, shown like any other call;
 * returns the system-prompt sections (a failed lookup is logged and skipped).
 */
export async function autoContextSections(turn: TurnTools, userMessage: string): Promise<string[]> {
  const { host, emit } = turn;
  const sections: string[] = [];
  if (!userMessage.trim()) return sections; // nothing to look up
  for (const [index, tool] of host.autoContextTools().entries()) {
    const parameter = firstRequiredString(tool.inputSchema);
    if (!parameter) {
      turn.logger.warn(
        { server: tool.server, tool: tool.name },
        'auto_context_tool has no string parameter; skipped',
      );
      continue;
    }
    // Shown like any other tool call, so a person sees the lookup happen.
    const target = host.resolveTool(tool.name);
    const event = {
      callId: `auto-context-${index}`,
      name: tool.name,
      ...(target ? { server: target.server, tool: target.tool } : {}),
    };
    const arguments_ = host.redact({ [parameter]: userMessage }, turn.turnSecrets()) as Record<
      string,
      unknown
    >;
    emit({ type: 'tool_start', ...event, arguments: arguments_, autoContext: true });
    const started = performance.now();
    let ok = false;
    try {
      const outcome = await host.callTool(
        tool.name,
        { [parameter]: userMessage },
        turn.callOptions({ id: event.callId, name: tool.name, server: tool.server }),
      );
      if (outcome.isError) throw new Error(outcome.text);
      ok = true;
      const instruction = host.responseInstructionFor(tool.name);
      // The server's response_instruction is now in the prompt: its tool results won't repeat it.
      if (instruction) turn.instructed.add(tool.server);
      sections.push(
        `Context from ${tool.server} (looked up for this message):\n${outcome.text}${instruction ? `\n\n${instruction}` : ''}`,
      );
    } catch (error) {
      if (turn.signal?.aborted) throw new CancelledError();
      turn.logger.warn(
        { server: tool.server, tool: tool.name, error: String(error) },
        'auto-context tool failed; skipped',
      );
    } finally {
      emit({ type: 'tool_end', ...event, ok, durationMs: performance.now() - started });
    }
  }
  return sections;
}
