import { ScriptedProvider } from '@ai-assistant/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChatEvent, ChatService } from '../src/chat/chat-service.js';
import { everythingEntry, managerPool, nodeServer } from './helpers.js';

const tinyImage = 'mcp__everything__get-tiny-image';

/** A model that calls server-everything's image tool once, then answers. */
const lookAtImage = (supportsImages: boolean) =>
  Object.assign(
    new ScriptedProvider([
      { toolCalls: [{ id: 'call_1', name: tinyImage, arguments: {} }] },
      { text: 'done' },
    ]),
    { supportsImages },
  );

describe('images a tool returns', () => {
  const pool = managerPool();
  afterEach(() => pool.closeAll());
  const connect = () =>
    pool.connect([nodeServer('everything', everythingEntry, ['stdio'], { approval: 'auto' })]);

  it('reach a vision model with the tool’s message, described in its text; the app gets them as an event', async () => {
    const manager = await connect();
    const provider = lookAtImage(true);
    const events: ChatEvent[] = [];
    await new ChatService({ provider, tools: manager }).respond({
      history: [],
      userMessage: 'show me',
      onEvent: (event) => events.push(event),
    });
    const tool = provider.calls[1]?.messages.find((message) => message.role === 'tool');
    expect(tool?.content).toMatch(/\[image: image\/png, \d+ bytes\]/);
    expect(tool?.images).toEqual([
      { mimeType: 'image/png', data: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) },
    ]);
    expect(events.find((event) => event.type === 'tool_images')).toMatchObject({
      callId: 'call_1',
      server: 'everything',
      images: [{ mimeType: 'image/png' }],
    });
  });

  it('a model that reads no images gets the description only', async () => {
    const manager = await connect();
    const provider = lookAtImage(false);
    await new ChatService({ provider, tools: manager }).respond({ history: [], userMessage: 'show me' });
    const tool = provider.calls[1]?.messages.find((message) => message.role === 'tool');
    expect(tool?.content).toMatch(/\[image: image\/png/);
    expect(tool?.images).toBeUndefined();
  });

  it('a resource link names its server, and the host’s resource tool reads it', async () => {
    const manager = await connect();
    const outcome = await manager.callTool('mcp__everything__get-resource-links', { count: 2 });
    const link = /\[resource link: (\S+)[^\]]*read it with host__read_resource, server "everything"\]/.exec(
      outcome.text,
    );
    expect(link, outcome.text).not.toBeNull();
    const read = await manager.callTool('host__read_resource', {
      server: 'everything',
      uri: link?.[1] as string,
    });
    expect(read.isError).toBe(false);
    expect(read.text.length).toBeGreaterThan(0);
    expect(read.text).not.toMatch(/^\[resource:/);
  });
});
