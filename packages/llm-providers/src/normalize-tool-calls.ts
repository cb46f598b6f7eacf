import { randomUUID } from 'node:crypto';
import type { ToolCall } from '@ai-assistant/chat-types';

// Shared by every adapter: vendors and local servers differ in how complete their tool calls are.

/** A tool call as a vendor sent it: any field may be missing or of the wrong type. */
export interface RawToolCall {
  id?: unknown;
  name?: unknown;
  arguments?: unknown;
  /** Fields the vendor attached that must be sent back with the call (kept only when an object). */
  vendorData?: unknown;
}

function parseArguments(raw: unknown): { arguments: Record<string, unknown>; argumentsError?: string } {
  if (raw === undefined || raw === null || raw === '') return { arguments: {} };
  if (typeof raw === 'object' && !Array.isArray(raw)) return { arguments: raw as Record<string, unknown> };
  if (typeof raw !== 'string')
    return { arguments: {}, argumentsError: `arguments must be a JSON object, got ${typeof raw}` };
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return { arguments: parsed as Record<string, unknown> };
    return {
      arguments: {},
      argumentsError: `arguments must be a JSON object, got ${JSON.stringify(parsed)?.slice(0, 100)}`,
    };
  } catch {
    return { arguments: {}, argumentsError: `arguments were not valid JSON: ${raw.slice(0, 200)}` };
  }
}

/** Turns raw calls into neutral ones; ids are made present and unique (local servers repeat or omit them). */
export function normalizeToolCalls(raw: RawToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return raw
    .filter((call) => typeof call.name === 'string' && call.name !== '')
    .map((call) => {
      let id =
        typeof call.id === 'string' && call.id.trim() !== '' ? call.id : `call_${randomUUID().slice(0, 12)}`;
      if (seen.has(id)) id = `${id}_${randomUUID().slice(0, 8)}`;
      seen.add(id);
      const vendorData =
        call.vendorData && typeof call.vendorData === 'object' && !Array.isArray(call.vendorData)
          ? { vendorData: call.vendorData as Record<string, unknown> }
          : {};
      return { id, name: call.name as string, ...parseArguments(call.arguments), ...vendorData };
    });
}
