import type Database from 'better-sqlite3';

/**
 * Collects rows for one table and inserts them with multi-row INSERT statements: a statement
 * call costs far more than a row, and ingest appends one or two rows per event. Statements are
 * prepared once per row count and cached. Callers flush before anything reads the table.
 */
export class RowBuffer {
  private readonly statements = new Map<number, Database.Statement>();
  private values: unknown[] = [];
  private rows = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly table: string,
    private readonly columns: readonly string[],
    private readonly rowsPerStatement = 64,
  ) {}

  /** Appends one row, its values in column order. */
  push(row: readonly unknown[]): void {
    for (const value of row) this.values.push(value);
    this.rows += 1;
    if (this.rows === this.rowsPerStatement) this.flush();
  }

  flush(): void {
    if (this.rows === 0) return;
    this.statement(this.rows).run(this.values);
    this.values = [];
    this.rows = 0;
  }

  /** Drops rows not yet written (the transaction they belonged to failed). */
  clear(): void {
    this.values = [];
    this.rows = 0;
  }

  private statement(rows: number): Database.Statement {
    let statement = this.statements.get(rows);
    if (!statement) {
      const row = `(${this.columns.map(() => '?').join(', ')})`;
      statement = this.db.prepare(
        `INSERT INTO ${this.table} (${this.columns.join(', ')}) VALUES ${Array(rows).fill(row).join(', ')}`,
      );
      this.statements.set(rows, statement);
    }
    return statement;
  }
}
