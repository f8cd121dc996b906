/** PostgreSQL's insufficient_privilege (SQLSTATE 42501). */
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Whether a store refused a statement for want of privilege: the role of a PostgreSQL URL may
 * read the store but not write it (or not even read it). Here, not in the adapter, so that
 * commands can say so without loading the PostgreSQL adapter (open-store.ts loads it on demand).
 */
export function isPrivilegeRefusal(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === INSUFFICIENT_PRIVILEGE;
}
