/** The pgpass package (node-postgres's own reader of libpq's password file); it ships no types. */
declare module 'pgpass' {
  interface ConnectionInfo {
    readonly host?: string | null;
    readonly port?: number | string | null;
    readonly database?: string | null;
    readonly user?: string | null;
  }
  /** The password file's password for the connection (PGPASSFILE or ~/.pgpass), undefined when none. */
  function pgPass(connection: ConnectionInfo, done: (password: string | undefined) => void): void;
  export = pgPass;
}
