/**
 * The little of ldapjs 3 (a devDependency, CommonJS, no types of its own) that the fake AD
 * server in fake-ad.ts uses.
 */
declare module "ldapjs" {
  import type { Server as NetServer } from "node:net";

  interface LdapFilter {
    readonly type: string;
    readonly clauses: LdapFilter[];
    readonly filter: LdapFilter;
    readonly attribute: string;
    readonly value: unknown;
    readonly matchingRule?: string;
  }

  interface LdapControl {
    readonly type: string;
    readonly value: { size?: number; cookie?: Buffer };
  }

  interface LdapRequest {
    readonly dn: { toString(): string };
    readonly credentials: string;
    readonly scope: number;
    readonly filter: LdapFilter & { toString(): string };
    readonly attributes: string[];
    readonly controls: LdapControl[];
    readonly connection: { ldap: { bindDN: { toString(): string } } };
  }

  interface LdapResponse {
    createSearchEntry(entry: { objectName: string; attributes: unknown[] }): unknown;
    send(entry: unknown): void;
    addControl(control: unknown): void;
    end(status?: number): void;
  }

  type Handler = (req: LdapRequest, res: LdapResponse, next: (err?: Error) => void) => void;

  interface LdapServer {
    readonly server: NetServer;
    bind(dn: string, handler: Handler): void;
    search(dn: string, handler: Handler): void;
    add(dn: string, handler: Handler): void;
    modify(dn: string, handler: Handler): void;
    del(dn: string, handler: Handler): void;
    modifyDN(dn: string, handler: Handler): void;
    listen(port: number, host: string, callback: () => void): void;
    address(): { port: number };
    close(callback: () => void): void;
  }

  type LdapError = new (message?: string) => Error;

  const ldap: {
    createServer(): LdapServer;
    Attribute: new (options: { type: string; values: (string | Buffer)[] }) => unknown;
    PagedResultsControl: new (options: { value: { size: number; cookie: Buffer } }) => unknown;
    InvalidCredentialsError: LdapError;
    OperationsError: LdapError;
    NoSuchObjectError: LdapError;
    UnwillingToPerformError: LdapError;
    InsufficientAccessRightsError: LdapError;
    EntryAlreadyExistsError: LdapError;
  };
  export default ldap;
  export type { LdapFilter, LdapRequest, LdapResponse };
}
