/** A response body that grew past the host's cap (`max_response_bytes`). */
import { HostError } from '@ai-assistant/chat-types';
export class ResponseTooLargeError extends HostError {
  override name = 'ResponseTooLargeError';
  constructor(message: string) {
    super('RESPONSE_TOO_LARGE', message);
  }
}

/**
 * The same response with a body that errors once it passes `limit` bytes, so a remote server cannot make
 * the host buffer hundreds of megabytes. An event stream is capped per event (the count restarts after
 * each blank line), since the stream itself may stay open for hours.
 */
export function capResponse(response: Response, limit: number): Response {
  if (!response.body) return response;
  const eventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
  let size = 0;
  const capped = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (eventStream) {
          const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
          const boundary = Math.max(text.lastIndexOf('\n\n'), text.lastIndexOf('\r\n\r\n'));
          size = boundary >= 0 ? chunk.byteLength - boundary : size + chunk.byteLength;
        } else {
          size += chunk.byteLength;
        }
        if (size > limit) {
          controller.error(
            new ResponseTooLargeError(
              `the server's response is larger than ${limit} bytes (max_response_bytes)`,
            ),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(capped, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
