import type { ImageContent, Logger, ToolFile } from '@ai-assistant/host-core';
import type { App } from '@slack/bolt';

type WebClient = App['client'];

/** At most this many images and files of one answer are posted to its thread. */
export const maxImagesPerAnswer = 8;

const extensions: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * Posts the images a tool returned in the thread as files (Slack's upload flow:
 * files.getUploadURLExternal, the upload, files.completeUploadExternal, which `uploadV2` runs). They
 * are already size-capped by host-core; a failure is logged and the answer goes on.
 */
export class ToolFiles {
  private posted = 0;
  private uploads: Promise<void>[] = [];

  constructor(
    private readonly client: WebClient,
    private readonly logger: Logger,
    private readonly channel: string,
    private readonly threadTs: string,
  ) {}

  /** Starts posting a tool's images (within the answer's budget). */
  add(tool: string, images: ImageContent[]): void {
    this.post(
      tool,
      images.map((image, index) => ({
        data: image.data,
        filename: `${tool}-${this.posted + index + 1}.${extensions[image.mimeType] ?? 'png'}`,
        title: `${tool} の画像`,
      })),
    );
  }

  /** Starts posting the files a tool returned (embedded resources), named as the tool named them. */
  addFiles(tool: string, files: ToolFile[]): void {
    this.post(
      tool,
      files.map((file) => ({ data: file.data, filename: file.name, title: `${tool}: ${file.name}` })),
    );
  }

  private post(tool: string, uploads: Array<{ data: string; filename: string; title: string }>): void {
    const room = Math.max(0, maxImagesPerAnswer - this.posted);
    const chosen = uploads.slice(0, room);
    if (chosen.length === 0) return;
    this.posted += chosen.length;
    const upload = this.client.files
      .uploadV2({
        channel_id: this.channel,
        thread_ts: this.threadTs,
        file_uploads: chosen.map((entry) => ({
          file: Buffer.from(entry.data, 'base64'),
          filename: entry.filename,
          title: entry.title,
        })),
      })
      .then(
        () => undefined,
        (error: unknown) =>
          this.logger.warn({ tool, error: String(error) }, 'could not post a tool’s files to the thread'),
      );
    this.uploads.push(upload);
  }

  /** Waits for the uploads under way. */
  async settled(): Promise<void> {
    await Promise.all(this.uploads);
  }
}
