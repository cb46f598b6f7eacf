import type { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { SlackElicitations } from './elicitation.js';
import { formBlocks, readForm } from './elicitation-form.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A Web API client that records what would be posted (the question never reaches Slack here). */
function recordingClient() {
  const posted: unknown[] = [];
  const postMessage = async (args: unknown) => {
    posted.push(args);
    return { ts: '1.0' };
  };
  const client = { chat: { postMessage } };
  return { posted, client: client as unknown as App['client'] };
}

describe('a server’s question, as a hostile server might shape it', () => {
  it('a URL-mode question whose URL is not https (javascript:, plain http elsewhere) is declined unposted', async () => {
    const { posted, client } = recordingClient();
    const questions = new SlackElicitations(client, silent, 1000);
    for (const url of ['javascript:alert(1)', 'http://evil.example/login', 'not a url']) {
      const answer = await questions.ask(
        { server: 'x', mode: 'url', message: 'sign in', url, elicitationId: 'e' },
        { channel: 'C1', threadTs: '1.0', asker: 'U1' },
      );
      expect(answer).toEqual({ action: 'decline' });
    }
    expect(posted).toEqual([]);
  });

  it('the form reads values back typed and refuses what the schema bounds refuse', () => {
    const schema = {
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 1, maximum: 5 },
        label: { type: 'string', title: '<!channel> *bold*' },
      },
      required: ['count'],
    };
    // A label is plain text: a server's title cannot ping or format.
    expect(formBlocks(schema)[1]?.label).toEqual({ type: 'plain_text', text: '<!channel> *bold*' });
    expect(readForm(schema, { p0: { value: { value: '9' } } })).toEqual({ errors: { p0: 'At most 5.' } });
    expect(readForm(schema, { p0: { value: { value: '2.5' } } })).toEqual({
      errors: { p0: 'Enter a whole number.' },
    });
    expect(readForm(schema, { p0: { value: { value: '3' } }, p1: { value: { value: 'hi' } } })).toEqual({
      content: { count: 3, label: 'hi' },
    });
  });

  it('#43.18 a choice is sent as the server offered it, named by its place; a forged place is refused', () => {
    const long = 'x'.repeat(200);
    const schema = {
      type: 'object',
      properties: {
        one: { type: 'string', enum: [`${long}1`, `${long}2`] },
        many: { type: 'array', items: { enum: ['a', 'b'] } },
      },
    };
    const [one] = formBlocks(schema);
    expect(one?.element).toMatchObject({ options: [{ value: '0' }, { value: '1' }] });
    expect(
      readForm(schema, {
        p0: { value: { selected_option: { value: '1' } } },
        p1: { value: { selected_options: [{ value: '1' }, { value: '0' }] } },
      }),
    ).toEqual({ content: { one: `${long}2`, many: ['b', 'a'] } });
    expect(readForm(schema, { p0: { value: { selected_option: { value: '2' } } } })).toEqual({
      errors: { p0: 'Choose among the options shown.' },
    });
    expect(readForm(schema, { p1: { value: { selected_options: [{ value: 'b' }] } } })).toEqual({
      errors: { p1: 'Choose among the options shown.' },
    });
  });
});
