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

/**
 * A file a person attached to a message, as Slack describes it in the message's `files`. Its content is
 * served at `url_private_download` only with a bot token of its workspace (`Authorization: Bearer`);
 * without one Slack redirects to its sign-in page, as here.
 * https://docs.slack.dev/reference/objects/file-object/
 * https://docs.slack.dev/messaging/working-with-files/#authentication
 */
export interface AttachedFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  pretty_type: string;
  user: string;
  size: number;
  mode: 'hosted';
  is_external: false;
  url_private: string;
  url_private_download: string;
  permalink: string;
}

export interface FakeSlackFiles {
  /** Files shared with files.completeUploadExternal, in order. */
  shared: UploadedFile[];
  getUploadURL(args: Args, baseUrl: string): Record<string, unknown>;
  complete(args: Args): Record<string, unknown>;
  /** Serves `POST /upload/<file id>`; false when the request is not an upload. */
  upload(request: IncomingMessage, response: ServerResponse): boolean;
  /** Keeps a file a person attaches; `size` may be given larger than `bytes` (Slack's word for it). */
  attach(
    file: { name: string; mimetype: string; bytes: Buffer; user: string; team: string; size?: number },
    baseUrl: string,
  ): AttachedFile;
  /** Downloads: the request's bot token (undefined: none) decides; false when not a download. */
  download(
    request: IncomingMessage,
    response: ServerResponse,
    teamOfToken: (token: string | undefined) => string | undefined,
  ): boolean;
  /** Each download of an attached file, and whether it was served. */
  downloads: Array<{ id: string; served: boolean }>;
}

const filetypes: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'application/pdf': 'pdf',
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/csv': 'csv',
  'application/zip': 'zip',
};

export function fakeSlackFiles(): FakeSlackFiles {
  const pending = new Map<string, { filename: string; length: number; bytes?: Buffer }>();
  const shared: UploadedFile[] = [];
  const attached = new Map<string, { team: string; bytes: Buffer; mimetype: string }>();
  const downloads: Array<{ id: string; served: boolean }> = [];
  let next = 0;
  return {
    shared,
    downloads,
    attach(file, baseUrl) {
      const id = `F${String(++next).padStart(8, '0')}`;
      attached.set(id, { team: file.team, bytes: file.bytes, mimetype: file.mimetype });
      const filetype = filetypes[file.mimetype] ?? 'binary';
      const path = `/files-pri/${file.team}-${id}`;
      return {
        id,
        name: file.name,
        title: file.name,
        mimetype: file.mimetype,
        filetype,
        pretty_type: filetype.toUpperCase(),
        user: file.user,
        size: file.size ?? file.bytes.length,
        mode: 'hosted',
        is_external: false,
        url_private: `${baseUrl}${path}/${encodeURIComponent(file.name)}`,
        url_private_download: `${baseUrl}${path}/download/${encodeURIComponent(file.name)}`,
        permalink: `${baseUrl}/files/${file.user}/${id}/${encodeURIComponent(file.name)}`,
      };
    },
    download(request, response, teamOfToken) {
      const match = /^\/files-pri\/(T[A-Z0-9]+)-(F\d+)\/(?:download\/)?[^/]+$/.exec(request.url ?? '');
      if (!match || request.method !== 'GET') return false;
      const file = attached.get(match[2] as string);
      const token = request.headers.authorization?.replace(/^Bearer /, '');
      const served = file !== undefined && file.team === match[1] && teamOfToken(token) === file.team;
      downloads.push({ id: match[2] as string, served });
      if (!file || !served) {
        // As Slack: no (or another workspace's) token is sent to the sign-in page.
        response.writeHead(302, { location: '/?redir=%2Ffiles-pri' }).end();
        return true;
      }
      response
        .writeHead(200, { 'content-type': file.mimetype, 'content-length': String(file.bytes.length) })
        .end(file.bytes);
      return true;
    },
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
