/**
 * A refusal, not a fault: the batch names an event (date, seq) that is already stored with
 * different content. `index` is the position of the offending event in the append call, so the
 * ingest layer can report the input line.
 */
export class EventConflictError extends Error {
  readonly index: number;
  readonly date: string;
  readonly seq: number;

  constructor(index: number, date: string, seq: number) {
    super(`conflicts with stored event ${date}/${seq}`);
    this.name = 'EventConflictError';
    this.index = index;
    this.date = date;
    this.seq = seq;
  }
}
