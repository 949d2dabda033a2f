// The organizations of figure 12 (bench/multi-org.mjs): N emulators in this one process, each
// accepting only its own token (token-org-NN), seeded with its P people already in sync (or
// none), printed as one JSON line of URLs. Ends when its stdin closes.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { dist } from "./lib.mjs";

const [orgs, people, seeded] = process.argv.slice(2).map(Number);
const { startEmulator } = await import(pathToFileURL(join(dist, "emulator", "index.js")).href);
export const orgName = (i) => `org-${String(i + 1).padStart(2, "0")}`;
export const person = (org, j) => {
  const n = String(j + 1).padStart(6, "0");
  return { email: `${org}-${n}@bench.example`, id: `${org}-${n}`, displayName: `Person ${org} ${n}` };
};

const handles = [];
for (let i = 0; i < orgs; i++) {
  const org = orgName(i);
  const folk = seeded ? Array.from({ length: people }, (_, j) => person(org, j)) : [];
  handles.push(
    await startEmulator({
      port: 0,
      tokens: { [`token-${org}`]: "admin" },
      requestLogLimit: 0,
      seed: {
        groups: [{ id: org }],
        idpUsers: folk.map((p) => ({
          email: p.email,
          displayName: p.displayName,
          authenticationId: `a-${p.id}`,
        })),
        mappings: folk.map((p) => ({
          id: p.id,
          authenticationId: `a-${p.id}`,
          email: p.email,
          groups: [org],
        })),
      },
    }),
  );
}
console.log(JSON.stringify(handles.map((h) => h.url)));
process.stdin.resume();
process.stdin.on("end", async () => {
  for (const h of handles) await h.close();
  process.exit(0);
});
