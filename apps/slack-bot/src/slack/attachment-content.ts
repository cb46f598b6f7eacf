import { HostError } from '@ai-assistant/host-core';

/** Why a file was not read, in the words the answer shows. */
export class Refused extends HostError {
  constructor(message: string) {
    super('ATTACHMENT_REFUSED', message);
  }
}
/** A file larger than its cap, found while downloading (Slack's `size` said less). */
export class TooLarge extends HostError {
  constructor() {
    super('ATTACHMENT_TOO_LARGE', 'the file is larger than its limit');
  }
}

/**
 * Downloads a file with the workspace's bot token, only from Slack's own file host (or the API's
 * origin when `SLACK_API_URL` points elsewhere), never following a redirect (a redirect means Slack
 * did not hand the file over: usually the `files:read` scope is missing), and never more than `cap`
 * bytes.
 */
export async function download(
  url: string,
  token: string,
  cap: number,
  allowedOrigins: readonly string[],
  signal: AbortSignal,
): Promise<Uint8Array> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Refused('アドレスが URL ではありません');
  }
  if (!allowedOrigins.includes(parsed.origin))
    throw new Refused('Slack のファイル置き場のものではありません');
  const response = await fetch(parsed, {
    headers: { authorization: `Bearer ${token}` },
    redirect: 'manual',
    signal,
  });
  if (response.status >= 300 && response.status < 400)
    throw new Refused(
      'Slack がファイルを渡しませんでした。アプリに files:read の権限があるか確認してください',
    );
  if (!response.ok) throw new Refused(`Slack が HTTP ${response.status} を返しました`);
  if ((response.headers.get('content-type') ?? '').startsWith('text/html'))
    throw new Refused(
      'Slack がファイルの代わりにウェブページを返しました。アプリに files:read の権限があるか確認してください',
    );
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > cap) {
    await response.body?.cancel();
    throw new TooLarge();
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.byteLength;
    if (total > cap) {
      await response.body?.cancel().catch(() => undefined);
      throw new TooLarge();
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** The signature bytes of each image type: what Slack says the file is must be what it holds. */
export function looksLike(mime: string, bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 12));
  if (mime === 'image/png') return head.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  if (mime === 'image/jpeg') return head[0] === 0xff && head[1] === 0xd8;
  if (mime === 'image/gif') return head.subarray(0, 4).toString('latin1') === 'GIF8';
  if (mime === 'image/webp')
    return (
      head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP'
    );
  return false;
}
