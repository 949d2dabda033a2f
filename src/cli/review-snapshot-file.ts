/**
 * Review snapshots on disk (docs/audits.md "The snapshot"): read one back (`--since`, `--from`,
 * `review verify`), recompute its digest, sign it with a private key and check a signature with
 * the public key. A signature is a JWS (RFC 7515) in compact form with a detached payload
 * (`<protected header>..<signature>`): the payload is the digest string (`sha256:<hex>`), which
 * covers everything else. Keys are PEM files (a Kubernetes Secret mounted as a file);
 * `jose` is imported only when a key is given (docs/architecture.md "Start-up").
 */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { open, readFile, type FileHandle } from "node:fs/promises";
import { ConfigError } from "../errors.js";
import { snapshotDigest } from "../review/canonical.js";
import { asSnapshot } from "../review/from-snapshot.js";
import { shareRowParts } from "../review/snapshot-intern.js";
import { readJsonLines } from "./snapshot-lines.js";
import type { Snapshot } from "../review/snapshot.js";

const reason = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** A snapshot file, parsed and checked for shape; a ConfigError (exit 4) naming `flag` otherwise. */
export async function readSnapshotFile(path: string, flag: string): Promise<Snapshot> {
  // A line at a time when laid out as --format json writes it (snapshot-lines.ts), else whole.
  const value = (await readLaidOut(path)) ?? parseWhole(await readText(path, flag), path, flag);
  const snapshot = asSnapshot(value);
  if (typeof snapshot === "string")
    throw new ConfigError({
      message: `${flag} ${path}: ${snapshot}. Give a snapshot saved with usersync review --format json --out FILE.`,
    });
  return shareRowParts(snapshot);
}

async function readLaidOut(path: string): Promise<unknown> {
  let file: FileHandle;
  try {
    file = await open(path);
  } catch {
    return undefined;
  }
  try {
    // A pipe (--from /dev/stdin) is read once: whole, as before.
    return (await file.stat()).isFile() ? await readJsonLines(file) : undefined;
  } finally {
    await file.close();
  }
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw new ConfigError({
      message: `${flag} ${path}: cannot read it (${reason(err)}). Give a snapshot saved with usersync review --format json --out FILE.`,
    });
  }
}

function parseWhole(text: string, path: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError({ message: `${flag} ${path}: not JSON (${(err as Error).message}).` });
  }
}

export interface Verification {
  /** The digest recomputed from the content. */
  recomputed: string;
  digestOk: boolean;
  /** Checked only with a public key: whether the signature is there and is the key's over the digest. */
  signature?: "valid" | "invalid" | "missing";
}

function algOf(key: KeyObject): string {
  const type = key.asymmetricKeyType;
  if (type === "ed25519") return "EdDSA";
  if (type === "rsa") return "RS256";
  if (type === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1") return "ES256";
    if (curve === "secp384r1") return "ES384";
  }
  throw new Error(`a ${type ?? "symmetric"} key; give an Ed25519, RSA or EC P-256/P-384 key in PEM`);
}

async function keyFile(path: string, flag: string, make: (pem: string) => KeyObject): Promise<KeyObject> {
  let pem: string;
  try {
    pem = await readFile(path, "utf8");
  } catch (err) {
    throw new ConfigError({ message: `${flag} ${path}: cannot read it (${reason(err)}).` });
  }
  try {
    const key = make(pem);
    algOf(key);
    return key;
  } catch (err) {
    throw new ConfigError({
      message: `${flag} ${path}: not a usable key (${(err as Error).message}). Give a PEM key (openssl genpkey -algorithm ed25519).`,
    });
  }
}

export const readPrivateKey = (path: string, flag: string): Promise<KeyObject> =>
  keyFile(path, flag, (pem) => createPrivateKey(pem));
export const readPublicKey = (path: string, flag: string): Promise<KeyObject> =>
  keyFile(path, flag, (pem) => createPublicKey(pem));

/** Signs the snapshot's digest: sets `header.signature`. */
export async function signSnapshot(snapshot: Snapshot, key: KeyObject): Promise<void> {
  const { CompactSign } = await import("jose");
  const jws = await new CompactSign(new TextEncoder().encode(snapshot.header.digest))
    .setProtectedHeader({ alg: algOf(key), typ: "usersync-review-digest" })
    .sign(key);
  const [protectedHeader, , signature] = jws.split(".");
  snapshot.header.signature = `${protectedHeader}..${signature}`;
}

/** Recomputes the digest and, with a public key, checks the signature over the recorded digest. */
export async function verifySnapshot(snapshot: Snapshot, publicKey?: KeyObject): Promise<Verification> {
  const recomputed = snapshotDigest(snapshot);
  const out: Verification = { recomputed, digestOk: recomputed === snapshot.header.digest };
  if (publicKey === undefined) return out;
  const sig = snapshot.header.signature;
  if (sig === undefined) return { ...out, signature: "missing" };
  const [h, p, s] = sig.split(".");
  if (h === undefined || p !== "" || s === undefined) return { ...out, signature: "invalid" };
  const { compactVerify } = await import("jose");
  const payload = Buffer.from(snapshot.header.digest, "utf8").toString("base64url");
  try {
    await compactVerify(`${h}.${payload}.${s}`, publicKey);
    return { ...out, signature: "valid" };
  } catch {
    return { ...out, signature: "invalid" };
  }
}

/** Why a verification fails, in a sentence; undefined when it passes. */
export function verificationProblem(v: Verification, recorded: string): string | undefined {
  if (!v.digestOk)
    return `its content does not match its digest (recorded ${recorded}, recomputed ${v.recomputed}): it was changed after it was written`;
  if (v.signature === "missing") return "it is not signed, and a public key was given";
  if (v.signature === "invalid") return "its signature is not the given public key's over its digest";
  return undefined;
}
