/**
 * `usersync emulator --directory google` (stand-ins.ts): a Google Workspace customer from a seed
 * in the Directory API's shapes (`users:` as `User`, `groups:` as `Group` with `members:` as
 * `Member` references by id; `customerId:` and `domain:` optional) or 50 generated people in 3
 * groups, plain http on 127.0.0.1 (the source takes http only there). usersync reads it as the
 * classic service-account key with domain-wide delegation: the key (its `token_uri` the
 * stand-in's) is written into the folder, delegation is granted for the three read-only scopes,
 * and `subject` is the seed's first active admin (`isAdmin: true`).
 */
import { generateKeyPairSync } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { listOf, readSeed, type StandInKind } from "../stand-in-seed.js";
import { SCOPE } from "./access.js";
import { generateCustomer } from "./generate.js";
import { startGoogleStandIn } from "./server.js";
import type { GoogleGroup, GoogleStandInOptions, GoogleUser } from "./types.js";

type Customer = Pick<GoogleStandInOptions, "customerId" | "domain" | "users" | "groups">;

const SERVICE_ACCOUNT = "usersync@rehearsal.iam.gserviceaccount.com";

/** The seed's customer; a member that names no user or group of it is refused, naming both. */
async function seededCustomer(file: string): Promise<Customer> {
  const seed = await readSeed(file);
  const users = listOf<GoogleUser>(seed, "users", file);
  const groups = listOf<GoogleGroup>(seed, "groups", file).map((g) => ({ ...g, members: g.members ?? [] }));
  const ids = new Set([...users.map((u) => u.id), ...groups.map((g) => g.id)]);
  for (const g of groups)
    for (const m of g.members)
      if (m.type !== "CUSTOMER" && m.email === undefined && !ids.has(m.id))
        throw new Error(
          `the seed ${file}: group ${g.email} has member ${m.id}, which is no user or group of it`,
        );
  const domain =
    typeof seed["domain"] === "string"
      ? seed["domain"]
      : (users[0]?.primaryEmail.split("@")[1] ?? "example.org");
  const customerId = typeof seed["customerId"] === "string" ? seed["customerId"] : "C0rehearsal";
  return { customerId, domain, users, groups };
}

export const google: StandInKind = async (o) => {
  const customer =
    o.seed !== undefined
      ? await seededCustomer(o.seed)
      : generateCustomer({ people: 50, groups: 3, domain: "example.com" });
  const admin = customer.users.find((u) => u.isAdmin === true && !u.suspended && !u.archived);
  if (admin === undefined)
    throw new Error(
      `the seed ${o.seed ?? ""} has no active admin (a user with isAdmin: true): usersync reads as one by domain-wide delegation`,
    );
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const standIn = await startGoogleStandIn({
    ...customer,
    port: o.port,
    idleMs: 2_000_000_000,
    serviceAccounts: [
      {
        clientEmail: SERVICE_ACCOUNT,
        publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
        delegatedScopes: Object.values(SCOPE),
      },
    ],
  });
  // The JSON key as the Cloud console downloads it, pointed at the stand-in.
  const keyFile = join(o.dir, "google-key.json");
  await writeFile(
    keyFile,
    JSON.stringify({
      type: "service_account",
      project_id: "usersync-rehearsal",
      private_key_id: "rehearsal",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      client_email: SERVICE_ACCOUNT,
      client_id: "100000000000000000000",
      token_uri: `${standIn.url}/token`,
    }),
    { mode: 0o600 },
  );
  const first = customer.groups[0]?.email ?? `team-0@${customer.domain}`;
  return {
    url: standIn.url,
    source: [
      "source:",
      "  type: google",
      "  google:",
      `    apiUrl: ${standIn.url}`,
      `    credentialsFile: ${keyFile}`,
      `    subject: ${admin.primaryEmail}`,
      "    groups:",
      `      - email: ${first}`,
    ].join("\n"),
    notes: [
      `Google Workspace stand-in (customer ${customer.customerId}, ${customer.users.length} people in ${customer.groups.length} groups) at ${standIn.url} (plain http on 127.0.0.1)`,
      `the service account's key (domain-wide delegation, acting as ${admin.primaryEmail}): ${keyFile}`,
    ],
    close: () => standIn.close(),
  };
};
