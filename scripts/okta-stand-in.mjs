// A local Okta for rehearsals (docs/okta.md): the stand-in of src/emulator/okta (built: run
// `npm run build` first) with made-up people in groups team-00, team-01, ..., a service app whose
// private key it writes to a file, and the source.okta block that reads it. Stops on Ctrl-C.
//
//   node scripts/okta-stand-in.mjs [--port 8090] [--people 50] [--groups 3] [--quota 600]
//                                  [--key .usersync/okta-key.pem]
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const fromDist = (rel) => import(pathToFileURL(join(root, "dist", rel)).href);
const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8090" },
    people: { type: "string", default: "50" },
    groups: { type: "string", default: "3" },
    quota: { type: "string", default: "600" },
    key: { type: "string", default: ".usersync/okta-key.pem" },
  },
});
const { makeDirectory } = await fromDist("emulator/okta/directory.js");
const { startOktaStandIn } = await fromDist("emulator/okta/server.js");

const clientId = "0oa1rehearsal0stand1in";
const keys = await generateKeyPair("RS256", { extractable: true });
const okta = await startOktaStandIn(
  {
    ...makeDirectory({ people: Number(values.people), groups: Number(values.groups) }),
    quota: { limit: Number(values.quota), windowSeconds: 60 },
    serviceApps: [
      {
        clientId,
        publicJwk: { ...(await exportJWK(keys.publicKey)), alg: "RS256" },
        scopes: ["okta.users.read", "okta.groups.read"],
      },
    ],
  },
  Number(values.port),
);
const keyFile = resolve(values.key);
await mkdir(dirname(keyFile), { recursive: true });
await writeFile(keyFile, await exportPKCS8(keys.privateKey), { mode: 0o600 });
console.log(`Okta stand-in at ${okta.url} (${values.people} people in ${values.groups} groups, ${values.quota} requests a minute)
source:
  type: okta
  okta:
    orgUrl: ${okta.url}
    credentials: { clientId: ${clientId}, privateKeyFile: ${keyFile} }
    groups:
      - search: 'profile.name sw "team-"'`);
const stop = () => okta.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
