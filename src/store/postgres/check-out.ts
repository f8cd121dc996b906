import type pg from 'pg';

/**
 * A connection taken from the pool for a while (a write batch, an export). The pool listens
 * for a connection's errors only while it is idle in the pool; a connection held between
 * queries that the server drops would emit an error nobody listens to, which ends the
 * process. Here it is heard and dropped: the next query on the connection fails and says why,
 * and the connection is discarded when released.
 */
export async function checkOut(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  let broken = false;
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  const release = client.release;
  client.release = (error?: Error | boolean) => {
    client.removeListener('error', onError);
    return release(error ?? broken);
  };
  return client;
}
