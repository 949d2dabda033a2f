/** Types of slapd-server.mjs (plain JavaScript, shared with the bench scripts). */
export function findSlapd(): { slapd: string; slapadd: string } | undefined;
export function moduleDir(): string | undefined;
export function slapdConf(o: {
  dir: string;
  suffix: string;
  rootDn: string;
  rootPassword?: string;
  strictSizeLimit?: boolean;
  maxSize?: number;
  /** slapo-accesslog: the log's suffix, who may read it, its own root, its purge (`age interval`). */
  accessLog?: {
    base: string;
    readerDn: string;
    rootDn?: string;
    rootPassword?: string;
    purge?: string;
    maxSize?: number;
  };
}): string;
export interface SlapdProcess {
  port: number;
  url: string;
  /** How long slapadd took, in milliseconds. */
  loadMs: number;
  /** Starts slapd again (same data, same port) after `stop()`. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** What slapd wrote to stderr (every operation with `stats`). */
  log(): string;
}
export function serveSlapd(o: {
  conf: string;
  ldifFile: string;
  stats?: boolean;
  /** The suffix slapadd loads, where the conf has more than one database. */
  database?: string;
}): Promise<SlapdProcess>;
