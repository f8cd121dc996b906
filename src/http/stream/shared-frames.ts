import type { ServerResponse } from 'node:http';

/**
 * A selection's frames of a page or batch, encoded once and written as they are to every stream
 * of that selection. They are kept framed as an HTTP/1.1 chunk too, in the same memory: a live
 * batch goes to a thousand sockets, and a chunk written straight to each costs one write call
 * where ServerResponse.write costs four (length, CRLF, data, CRLF) gathered on the next tick.
 */
export interface SharedFrames {
  /** The frames: what a stream sends. */
  readonly bytes: Buffer;
  /** `bytes` as one chunk of a chunked body: its length in hex, CRLF, the bytes, CRLF. */
  readonly chunk: Buffer;
  /** Events the frames carry. */
  readonly count: number;
}

export function sharedFrames(text: string, count: number): SharedFrames {
  const length = Buffer.byteLength(text);
  // The chunk framing ServerResponse.write puts around a chunk, byte for byte (RFC 9112 7.1).
  const head = `${length.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(head.length + length + 2);
  chunk.write(head, 0, 'latin1');
  chunk.write(text, head.length, 'utf8');
  chunk.write('\r\n', head.length + length, 'latin1');
  return { bytes: chunk.subarray(head.length, head.length + length), chunk, count };
}

/**
 * Writes shared frames to a stream's response whose head is out (it has written before): as a
 * chunk straight to the socket when the response is chunked and holds nothing of its own (the
 * bytes go where ServerResponse.write would put them, after everything written before), else
 * through the response. The socket's writableLength counts the bytes either way, so a slow
 * consumer's queue is measured as before. Not for a writer that waits for the response's
 * 'drain': only response.write arms it.
 */
export function writeFrames(response: ServerResponse, frames: SharedFrames): void {
  // No frames: no chunk (an empty one would end the body).
  if (frames.bytes.length === 0) return;
  const { socket } = response;
  if (
    socket?.writable &&
    response.chunkedEncoding &&
    // Nothing kept in the response itself (it keeps writes only while it has no writable socket).
    response.writableLength === socket.writableLength
  ) {
    socket.write(frames.chunk);
  } else {
    response.write(frames.bytes);
  }
}
