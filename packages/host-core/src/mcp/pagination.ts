import type { Client } from '@modelcontextprotocol/client';

/** Every page of a server's tools, resources, resource templates or prompts (none if not offered). */
export async function listAll(
  client: Client,
  kind: 'tools' | 'resources' | 'templates' | 'prompts',
): Promise<unknown[]> {
  const capabilities = client.getServerCapabilities();
  const offered =
    kind === 'tools'
      ? capabilities?.tools
      : kind === 'prompts'
        ? capabilities?.prompts
        : capabilities?.resources;
  if (!offered) return [];
  const page = async (cursor: string | undefined): Promise<{ items: unknown[]; next?: string }> => {
    const parameters = cursor ? { cursor } : undefined;
    switch (kind) {
      case 'tools':
        return client
          .listTools(parameters)
          .then((result) => ({ items: result.tools, next: result.nextCursor }));
      case 'resources':
        return client
          .listResources(parameters)
          .then((result) => ({ items: result.resources, next: result.nextCursor }));
      case 'templates':
        return client
          .listResourceTemplates(parameters)
          .then((result) => ({ items: result.resourceTemplates, next: result.nextCursor }));
      default:
        return client
          .listPrompts(parameters)
          .then((result) => ({ items: result.prompts, next: result.nextCursor }));
    }
  };
  const items: unknown[] = [];
  let cursor: string | undefined;
  // Bounded: a server that keeps handing out cursors must not keep the host listing forever.
  for (let count = 0; count < 100; count++) {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.next;
    if (!cursor) break;
  }
  return items;
}
