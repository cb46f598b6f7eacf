import type { IncomingMessage, ServerResponse } from 'node:http';

// Slack's upload flow for files (what the WebClient's `files.uploadV2` runs): files.getUploadURLExternal
// (filename and length required) gives an upload URL and a file id; the bytes are POSTed there; then
// files.completeUploadExternal (files required) shares the uploaded files in a channel or thread.
// https://docs.slack.dev/reference/methods/files.getUploadURLExternal/
// https://docs.slack.dev/reference/methods/files.completeUploadExternal/

/** A file the app uploaded and shared. */
export interface UploadedFile {
  id: string;
  filename: string;
  title?: string;
  bytes: Buffer;
  channel?: string;
  threadTs?: string;
}

type Args = Record<string, unknown>;

export interface FakeSlackFiles {
  /** Files shared with files.completeUploadExternal, in order. */
  shared: UploadedFile[];
  getUploadURL(args: Args, baseUrl: string): Record<string, unknown>;
  complete(args: Args): Record<string, unknown>;
  /** Serves `POST /upload/<file id>`; false when the request is not an upload. */
  upload(request: IncomingMessage, response: ServerResponse): boolean;
}

export function fakeSlackFiles(): FakeSlackFiles {
  const pending = new Map<string, { filename: string; length: number; bytes?: Buffer }>();
  const shared: UploadedFile[] = [];
  let next = 0;
  return {
    shared,
    getUploadURL(args, baseUrl) {
      const length = Number(args.length);
      if (
        typeof args.filename !== 'string' ||
        args.filename === '' ||
        !Number.isInteger(length) ||
        length <= 0
      )
        return { ok: false, error: 'invalid_arguments' };
      const id = `F${String(++next).padStart(8, '0')}`;
      pending.set(id, { filename: args.filename, length });
      return { ok: true, upload_url: `${baseUrl}/upload/${id}`, file_id: id };
    },
    complete(args) {
      const files = Array.isArray(args.files)
        ? (args.files as Array<{ id?: string; title?: string }>)
        : undefined;
      if (!files || files.length === 0) return { ok: false, error: 'invalid_arguments' };
      const uploads = files.map((file) => ({ file, upload: pending.get(String(file.id)) }));
      // A file id that was never issued, or whose bytes never arrived, is not found.
      if (uploads.some(({ upload }) => !upload?.bytes)) return { ok: false, error: 'file_not_found' };
      for (const { file, upload } of uploads) {
        pending.delete(String(file.id));
        shared.push({
          id: String(file.id),
          filename: upload?.filename ?? '',
          ...(file.title ? { title: file.title } : {}),
          bytes: upload?.bytes as Buffer,
          ...(args.channel_id ? { channel: String(args.channel_id) } : {}),
          ...(args.thread_ts ? { threadTs: String(args.thread_ts) } : {}),
        });
      }
      return { ok: true, files: files.map((file) => ({ id: file.id, title: file.title })) };
    },
    upload(request, response) {
      const match = /^\/upload\/(F\d+)$/.exec(request.url ?? '');
      if (!match || request.method !== 'POST') return false;
      const upload = pending.get(match[1] as string);
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (!upload) {
          response.writeHead(404).end();
          return;
        }
        // Raw bytes, or multipart form data (what the WebClient sends): the file part's content.
        upload.bytes = fileContent(Buffer.concat(chunks), String(request.headers['content-type'] ?? ''));
        response.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${upload.bytes.length}`);
      });
      return true;
    },
  };
}

/** The body's file: the whole body, or the content of a multipart body's part that names a filename. */
function fileContent(body: Buffer, contentType: string): Buffer {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!contentType.startsWith('multipart/form-data') || !boundary) return body;
  const separator = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let start = body.indexOf(separator);
  while (start !== -1) {
    const next = body.indexOf(separator, start + separator.length);
    if (next === -1) break;
    const part = body.subarray(start + separator.length, next);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd !== -1 && /filename=/i.test(part.subarray(0, headerEnd).toString('latin1')))
      return part.subarray(headerEnd + 4, part.length - 2);
    start = next;
  }
  return body;
}
