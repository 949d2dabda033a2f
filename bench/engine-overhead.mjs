// Figure 5, engine overhead: the same 5,000-user apply (10,000 requests) against a zero-latency
// emulator, by the engine (list, plan, DAG executor, client with retries and limits) and by a
// bare undici loop POSTing the same bodies at the same concurrency. Ratio of requests per second,
// side by side in each run (they alternate, a fresh emulator each), median of 3.
// Target: the engine reaches at least 0.7 of the bare loop.
import { Pool } from "undici";
import { applyInProcess, benchSeed, desiredUsers, fromDist, median, printTable, round, startEmulatorWorker, TOKEN, writeResult } from "./lib.mjs";

const USERS = 5000;
const CONCURRENCY = 32;
const RUNS = 3;
const TARGET = 0.7;
const { v1Codec } = await fromDist("service/profile-v1.js");

/** Credentials create then mapping create per user, `CONCURRENCY` users at a time, nothing else. */
async function bareLoop(url, users) {
  const pool = new Pool(url, { connections: CONCURRENCY, pipelining: 1 });
  const auth = { authorization: `Bearer ${TOKEN}` };
  let next = 0;
  let requests = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < users.length) {
          const u = users[next++];
          const idp = await pool.request({ method: "POST", path: "/api/v1/auth/users", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ email: u.email, displayName: u.displayName }) });
          const created = await idp.body.json();
          const mapping = { id: u.id, authenticationId: created.authenticationId, email: u.email, groups: u.groups };
          const res = await pool.request({ method: "POST", path: "/api/v1/entities/users", headers: { ...auth, "content-type": "application/vnd.gooddata.api+json" }, body: JSON.stringify(v1Codec.encodeMapping(mapping)) });
          await res.body.text();
          requests += 2;
          if (idp.statusCode !== 200 || res.statusCode !== 201) throw new Error(`bare loop: answers ${idp.statusCode}, ${res.statusCode}`);
        }
      }),
    );
    return { seconds: (performance.now() - started) / 1000, requests };
  } finally {
    await pool.close();
  }
}

async function withEmulator(fn) {
  const emulator = await startEmulatorWorker({ seed: benchSeed() });
  try {
    return await fn(emulator.url);
  } finally {
    await emulator.close();
  }
}

const runs = [];
for (let r = 0; r < RUNS; r++) {
  const engine = await withEmulator((url) => applyInProcess({ url, users: desiredUsers(USERS), concurrency: CONCURRENCY }));
  const bare = await withEmulator((url) => bareLoop(url, desiredUsers(USERS)));
  runs.push({ engineRps: engine.requests / engine.seconds, bareRps: bare.requests / bare.seconds, ratio: engine.requests / engine.seconds / (bare.requests / bare.seconds), engine, bare });
}
const ratio = median(runs.map((r) => r.ratio));
printTable(
  `5. Engine overhead: ${USERS.toLocaleString("en")} users, zero latency, concurrency ${CONCURRENCY} (median of ${RUNS})`,
  ["sender", "requests", "requests/s", "ratio", "target"],
  [
    ["usersync engine", runs[0].engine.requests.toLocaleString("en"), round(median(runs.map((r) => r.engineRps)), 0), round(ratio, 2), `>= ${TARGET}: ${ratio >= TARGET ? "met" : "MISSED"}`],
    ["bare undici loop", runs[0].bare.requests.toLocaleString("en"), round(median(runs.map((r) => r.bareRps)), 0), 1, ""],
  ],
);
await writeResult("engine-overhead", { users: USERS, concurrency: CONCURRENCY, ratio, target: TARGET, runs });
