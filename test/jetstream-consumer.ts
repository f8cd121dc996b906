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
