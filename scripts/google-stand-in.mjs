// A local Google Workspace for rehearsals (docs/google.md): the stand-in of src/emulator/google
// (built: run `npm run build` first) over HTTPS with the test CA of fixtures/tls, made-up people in
// groups team-0, team-1, ..., a service account whose key (token_uri: the stand-in) it writes to a
// file with domain-wide delegation granted, and the source.google block that reads it. Stops on Ctrl-C.
//
//   node scripts/google-stand-in.mjs [--port 8091] [--people 50] [--groups 3] [--key .usersync/google-key.json]
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const fromDist = (rel) => import(pathToFileURL(join(root, "dist", rel)).href);
const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8091" },
    people: { type: "string", default: "50" },
    groups: { type: "string", default: "3" },
    key: { type: "string", default: ".usersync/google-key.json" },
  },
});
const { startGoogleStandIn } = await fromDist("emulator/google/server.js");
const { generateCustomer } = await fromDist("emulator/google/generate.js");
const { GOOGLE_SCOPES } = await fromDist("desired/sources/google/credentials.js");

const tls = join(root, "fixtures", "tls");
const sa = "usersync@rehearsal.iam.gserviceaccount.com";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const customer = generateCustomer({
  people: Number(values.people),
  groups: Number(values.groups),
  domain: "example.com",
});
const google = await startGoogleStandIn({
  ...customer,
  port: Number(values.port),
  idleMs: 24 * 3600_000,
  tls: { key: readFileSync(join(tls, "server-key.pem")), cert: readFileSync(join(tls, "server.pem")) },
  serviceAccounts: [
    {
      clientEmail: sa,
      publicKeyPem: publicKey.export({ type: "spki", format: "pem" }),
      delegatedScopes: GOOGLE_SCOPES,
    },
  ],
});
const keyFile = resolve(values.key);
await mkdir(dirname(keyFile), { recursive: true });
await writeFile(
  keyFile,
  JSON.stringify({
    type: "service_account",
    client_email: sa,
    client_id: "100000000000000000000",
    private_key_id: "rehearsal",
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
    token_uri: `${google.url}/token`,
  }),
  { mode: 0o600 },
);
process.stdout.write(
  [
    `Google Workspace stand-in at ${google.url} (${values.people} people in ${values.groups} groups); key in ${keyFile}`,
    "source:",
    "  type: google",
    "  google:",
    `    apiUrl: ${google.url}`,
    `    caFile: ${join(tls, "ca.pem")}`,
    `    credentialsFile: ${keyFile}`,
    "    subject: admin@example.com",
    "    groups:",
    '      - query: "email:team-*"',
    "",
  ].join("\n"),
);
process.on("SIGINT", () => void google.close().then(() => process.exit(0)));
