import pgPass from 'pgpass';

export interface PasswordFor {
  readonly host?: string | null;
  readonly port?: number | null;
  readonly database?: string | null;
  readonly user?: string | null;
}

/**
 * The password of a connection whose URL names none, where libpq and psql find it: PGPASSWORD,
 * else the password file (PGPASSFILE, or ~/.pgpass when it is private to its owner).
 * node-postgres asks for it only when the server wants a password, passing the connection's
 * host, port, database and user as it resolved them (its types leave that out). node-postgres 8
 * would read the file itself, but then prints a deprecation notice on every command's stderr,
 * and with no password at all fails in SCRAM's terms ("client password must be a string"); this
 * says what to do instead.
 */
export async function passwordFromEnvironment(connection: PasswordFor = {}): Promise<string> {
  const given = process.env.PGPASSWORD;
  if (given !== undefined && given !== '') return given;
  const stored = await new Promise<string | undefined>((resolve) => pgPass(connection, resolve));
  if (stored !== undefined) return stored;
  throw new Error(
    `the server asks for a password for the user ${connection.user ?? '(none)'}, and none was given: put it in ~/.pgpass (or the file PGPASSFILE names) or in PGPASSWORD`,
  );
}
