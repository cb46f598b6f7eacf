import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  acceptedContent,
  type CallToolResult,
  createMcpHandler,
  inputRequired,
  McpServer,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { FakeReply, FakeRequest } from './fake-vendor.js';
import { listenOnLoopback } from './ports.js';
import { completion } from './weather-model.js';

/** A running {@link startModernServer}. */
export interface ModernServer {
  url: string;
  /** The protocol version each request to it carried (its `MCP-Protocol-Version` header). */
  versions: string[];
  close(): void;
}

/**
 * A server that speaks MCP 2026-07-28 only, stateless, as the SDK's `createMcpHandler` serves it with
 * `legacy: 'reject'`: no `initialize` (a 2025 client is refused with -32022), `server/discover` instead,
 * and elicitation through `input_required` results (multi round-trip requests). Tools: `forecast`
 * (reads), and `book` (asks the person to confirm through an elicitation before it answers).
 */
export async function startModernServer(): Promise<ModernServer> {
  const versions: string[] = [];
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'modern', version: '1.0.0' });
      server.registerTool(
        'forecast',
        {
          description: 'The forecast for a city (a 2026-07-28 server)',
          inputSchema: z.object({ city: z.string() }),
          annotations: { readOnlyHint: true },
        },
        async ({ city }) => ({ content: [{ type: 'text', text: `${city}: sunny (2026-07-28)` }] }),
      );
      server.registerTool(
        'book',
        {
          description: 'Books a table once the person confirms',
          inputSchema: z.object({ place: z.string() }),
          annotations: { readOnlyHint: true },
        },
        async ({ place }, ctx) => {
          const confirmed = acceptedContent(
            ctx.mcpReq.inputResponses,
            'confirm',
            z.object({ confirm: z.boolean() }),
          );
          if (confirmed === undefined)
            return inputRequired({
              inputRequests: {
                confirm: inputRequired.elicit({
                  message: `Book a table at ${place}?`,
                  requestedSchema: {
                    type: 'object',
                    properties: { confirm: { type: 'boolean', title: 'Confirm' } },
                    required: ['confirm'],
                  },
                }),
              },
            });
          const result: CallToolResult = {
            content: [{ type: 'text', text: confirmed.confirm ? `booked ${place}` : 'not booked' }],
          };
          return result;
        },
      );
      return server;
    },
    { legacy: 'reject' },
  );
  const serve = toNodeHandler(handler);
  const server = createServer((request, response) => {
    versions.push(String(request.headers['mcp-protocol-version'] ?? ''));
    void serve(request, response);
  });
  const base = await listenOnLoopback(server);
  return {
    url: `${base}/mcp`,
    versions,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * A model for a turn across both eras: it calls the {@link startModernServer}'s `forecast` (as server
 * `modern`), then server-everything's `echo` (as server `everything`), then answers `結果: ` with both
 * results.
 */
export function bothErasModel(request: FakeRequest): FakeReply {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  const results = messages.filter((message) => message.role === 'tool').map((message) => message.content);
  if (results.length === 0)
    return completion(request, { toolCall: { name: 'mcp__modern__forecast', arguments: { city: '札幌' } } });
  if (results.length === 1)
    return completion(request, {
      toolCall: { name: 'mcp__everything__echo', arguments: { message: 'from 2025' } },
    });
  return completion(request, { text: `結果: ${results.join(' / ')}` });
}
