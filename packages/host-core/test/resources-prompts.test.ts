import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedProvider, toolMessage } from '@ai-assistant/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChatService } from '../src/chat/chat-service.js';
import { hostToolNames, McpClientManager } from '../src/mcp/client-manager.js';
import { everythingEntry, fixtures, knowledgeEntry, nodeServer } from './helpers.js';

const managers: McpClientManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});
async function connect(...servers: Parameters<McpClientManager['connect']>[0]) {
  const manager = new McpClientManager();
  managers.push(manager);
  await manager.connect(servers);
  return manager;
}

let docs: string;
beforeAll(() => {
  docs = mkdtempSync(join(tmpdir(), 'kb-host-'));
  writeFileSync(
    join(docs, 'deploy.md'),
    '# Deploy process\n\n## Rollback\nRevert the release tag, then run the deploy pipeline again.\n',
  );
  writeFileSync(
    join(docs, 'expenses.md'),
    '# 経費精算\n\n## 締め日\n経費精算の締め日は毎月25日です。領収書を添付してください。\n',
  );
});
afterAll(() => rmSync(docs, { recursive: true, force: true, maxRetries: 5 }));
const knowledge = (extra = {}) => nodeServer('kb', knowledgeEntry, ['--docs', docs], { ...extra });

describe('resources and prompts through McpClientManager', () => {
  it('the knowledge server: list and read resources and templates, list and get prompts', async () => {
    const mcp = await connect(knowledge());
    expect(
      mcp
        .listResources()
        .map((resource) => resource.uri)
        .sort(),
    ).toEqual(['kb://documents', 'kb://documents/deploy.md', 'kb://documents/expenses.md', 'kb://settings']);
    expect(mcp.listResourceTemplates()).toEqual([
      expect.objectContaining({ server: 'kb', uriTemplate: 'kb://documents/{id}' }),
    ]);
    expect((await mcp.readResource('kb', 'kb://documents/expenses.md')).text).toContain('毎月25日');
    expect(
      mcp.listPrompts().map((prompt) => [prompt.name, prompt.arguments.map((argument) => argument.name)]),
    ).toEqual([
      ['answer_with_context', ['question']],
      ['summarize_document', ['id']],
    ]);
    const prompt = await mcp.getPrompt('kb', 'answer_with_context', { question: '経費精算の締め日' });
    expect(prompt.messages).toEqual([{ role: 'user', content: expect.stringContaining('毎月25日') }]);
    // A prompt's error calls it a prompt, and says the server's reason once.
    const failure = await mcp
      .getPrompt('kb', 'answer_with_context', {})
      .catch((error: Error) => error.message);
    expect(failure).toMatch(/^Prompt "answer_with_context" of server "kb" failed: /);
    expect(String(failure).match(/Invalid arguments for prompt/g)).toHaveLength(1);
    await expect(mcp.readResource('kb', 'kb://documents/missing.md')).rejects.toMatchObject({
      code: 'TOOL_EXECUTION_FAILED',
    });
    await expect(mcp.getPrompt('nowhere', 'x')).rejects.toThrow(/nowhere/);
  });

  it('server-everything: static resources, templates, simple-prompt and args-prompt', async () => {
    const mcp = await connect(nodeServer('everything', everythingEntry, ['stdio']));
    const statics = mcp
      .listResources()
      .filter((resource) => resource.uri.startsWith('demo://resource/static/'));
    expect(statics.length).toBeGreaterThan(0);
    expect((await mcp.readResource('everything', statics[0]?.uri as string)).text.length).toBeGreaterThan(0);
    const templates = mcp.listResourceTemplates().map((template) => template.uriTemplate);
    expect(templates).toEqual(
      expect.arrayContaining([expect.stringContaining('demo://resource/dynamic/text/')]),
    );
    expect((await mcp.readResource('everything', 'demo://resource/dynamic/text/1')).text).toContain('1');
    const simple = await mcp.getPrompt('everything', 'simple-prompt');
    expect(simple.messages[0]).toMatchObject({ role: 'user', content: expect.any(String) });
    const withArgs = await mcp.getPrompt('everything', 'args-prompt', { city: 'Sapporo', state: 'Hokkaido' });
    expect(JSON.stringify(withArgs.messages)).toContain('Sapporo, Hokkaido');
  });

  it('offers list_resources / read_resource only when some server has resources', async () => {
    const plain = await connect(nodeServer('echo', join(fixtures, 'echo-server.mjs')));
    expect(plain.listTools().map((tool) => tool.name)).not.toContain(hostToolNames.listResources);
    const withKb = await connect(knowledge());
    const names = withKb.listTools().map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([hostToolNames.listResources, hostToolNames.readResource]));
    const listed = await withKb.callTool(hostToolNames.listResources, {});
    expect(listed.text).toContain('server: kb | uri: kb://documents/deploy.md | Deploy process');
    expect(listed.text).toContain('template: kb://documents/{id}');
    const missing = await withKb.callTool(hostToolNames.readResource, { uri: 'kb://documents' });
    expect(missing).toMatchObject({
      isError: true,
      text: expect.stringContaining('needs "server" and "uri"'),
    });
  });
});

describe('the chat loop with the knowledge server', () => {
  it('auto_context_tool injects the passages before the first call; the model reads a resource', async () => {
    const mcp = await connect(
      knowledge({ autoContextTool: 'search_knowledge', responseInstruction: 'Cite the documents you used.' }),
    );
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          {
            id: 'r',
            name: hostToolNames.readResource,
            arguments: { server: 'kb', uri: 'kb://documents/deploy.md' },
          },
        ],
      },
      (call) => ({
        text: toolMessage(call, 'r')?.content.includes('Revert the release tag')
          ? 'Revert the tag, then redeploy [Deploy process].'
          : 'not found',
      }),
    ]);
    const result = await new ChatService({ provider, tools: mcp }).respond({
      history: [],
      userMessage: 'How do I roll back a deploy?',
    });
    const system = provider.calls[0]?.messages[0]?.content ?? '';
    expect(system).toContain('Context from kb');
    expect(system).toContain('Deploy process › Rollback');
    expect(system).toContain('Cite the documents you used.');
    expect(result.text).toBe('Revert the tag, then redeploy [Deploy process].');
    expect(result.trace).toEqual([
      expect.objectContaining({ server: 'host', tool: 'read_resource', ok: true }),
    ]);
  });
});
