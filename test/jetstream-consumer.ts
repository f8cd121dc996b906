import type { JetStreamManager } from '@nats-io/jetstream';

/** The last stream sequence the durable has acknowledged all messages up to; 0 before it exists. */
export async function ackFloor(jsm: JetStreamManager, stream: string, durable: string): Promise<number> {
  const info = await jsm.consumers.info(stream, durable).catch(() => undefined);
  return info?.ack_floor.stream_seq ?? 0;
}

/** Whether the durable has every message of the stream acknowledged (or terminated). */
export async function consumerDrained(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
): Promise<boolean> {
  const info = await jsm.consumers.info(stream, durable).catch(() => undefined);
  if (info === undefined) return false;
  const streamInfo = await jsm.streams.info(stream);
  return (
    info.num_pending === 0 &&
    info.num_ack_pending === 0 &&
    info.ack_floor.stream_seq >= streamInfo.state.last_seq
  );
}

/**
 * Deletes a durable while its worker runs. nats-server before the fix of nats-io/nats-server#7886
 * (Debian's 2.9 among them) removes a consumer's directory without retrying, so a consumer still
 * writing its state fails the delete now and then ("unlinkat .../obs/<durable>: directory not
 * empty"), though the consumer itself is stopped by then. Then the delete is done if the durable is
 * gone or was made again since (the worker's own recovery); else it is asked again.
 */
export async function deleteConsumer(jsm: JetStreamManager, stream: string, durable: string): Promise<void> {
  const created = (await jsm.consumers.info(stream, durable)).created;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await jsm.consumers.delete(stream, durable);
      return;
    } catch (error) {
      if (attempt >= 5 || !/directory not empty/.test(String(error))) throw error;
    }
    const now = await jsm.consumers.info(stream, durable).catch(() => undefined);
    if (now === undefined || now.created !== created) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
