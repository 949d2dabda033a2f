/**
 * Issue 39 over many organizations: one config with three targets (three emulators, each with
 * its own token; gamma signs people in through an external OIDC provider), `usersync review
 * --all-targets` writes one review per organization and one combined CSV with an organization
 * column. Each review's access rows agree with an answer built from its own emulator's store.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse as parseYaml, stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { startEmulator, type EmulatorSeed } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { fromSnapshot } from "../../src/review/from-snapshot.js";
import type { Snapshot } from "../../src/review/snapshot.js";
import { ROOT, runCli } from "./run-cli.js";
import { expectedAccess, loginOf } from "./review-expected.js";
import { captureIo } from "../helpers/capture-io.js";

const NAMES = ["alpha", "beta", "gamma"] as const;
type Name = (typeof NAMES)[number];
const emulators = {} as Record<Name, EmulatorHandle>;
let dir: string;

const small = (org: string): EmulatorSeed => ({
  idpUsers: [
    { email: `admin@${org}.example`, displayName: "Admin", authenticationId: `${org}-admin` },
    { email: `ann@${org}.example`, displayName: "Ann", authenticationId: `${org}-ann` },
  ],
  mappings: [
    { id: "admin", authenticationId: `${org}-admin`, groups: [] },
    { id: "ann", authenticationId: `${org}-ann`, email: `ann@${org}.example`, groups: ["team"] },
    // Signs in through the organization's OIDC provider (gamma) or lost their login (beta).
    { id: "sso", authenticationId: `okta|${org}-sso`, email: `sso@${org}.example`, groups: ["lead"] },
  ],
  groups: [{ id: "team" }, { id: "lead", parents: ["team"] }],
  workspaces: [
    { id: "top", permissions: [{ userGroup: "team", permissions: ["VIEW"], hierarchy: ["VIEW"] }] },
    { id: "mid", parent: "top", permissions: [{ userGroup: "lead", permissions: ["ANALYZE"] }] },
    { id: "low", parent: "mid", permissions: [{ user: "ann", permissions: ["EXPORT"] }] },
  ],
  dataFilters: [{ workspace: "mid", id: `${org}-f`, maql: '{label/org} = "x"', userGroup: "lead" }],
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-review-targets-"));
  const demo = parseYaml(
    await readFile(join(ROOT, "fixtures/demo/organization.yaml"), "utf8"),
  ) as EmulatorSeed;
  for (const name of NAMES)
    emulators[name] = await startEmulator({
      port: 0,
      tokens: { [`${name}-token`]: "admin" },
      seed: name === "alpha" ? demo : small(name),
      ...(name === "gamma" ? { signIn: { oauthIssuerLocation: "https://sso.gamma.example" } } : {}),
    });
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      identity: { passwords: "none" },
      targets: NAMES.map((name) => ({ name, baseUrl: emulators[name].url, desired: `${name}.yaml` })),
    }),
  );
  await writeFile(join(dir, "alpha.yaml"), await readFile(join(ROOT, "fixtures/demo/users.yaml"), "utf8"));
  for (const name of ["beta", "gamma"])
    await writeFile(
      join(dir, `${name}.yaml`),
      stringify({
        version: 1,
        users: [{ email: `ann@${name}.example`, id: "ann", displayName: "Ann", groups: ["team"] }],
      }),
    );
});

afterAll(async () => {
  for (const name of NAMES) await emulators[name]?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("one review per organization and one combined CSV, each agreeing with its own store", async () => {
  const env = {
    USERSYNC_TOKEN_ALPHA: "alpha-token",
    USERSYNC_TOKEN_BETA: "beta-token",
    USERSYNC_TOKEN_GAMMA: "gamma-token",
    USERSYNC_LOGGING_FORMAT: "json",
  };
  const r = await runCli(
    ["review", "--all-targets", "--format", "json", "--out", "review.json", "--combined-csv", "all.csv"],
    { cwd: dir, env },
  );
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/Targets: 3, exit 0/);
  const combined = parseCsv(await readFile(join(dir, "all.csv"), "utf8"), { columns: true }) as Array<
    Record<string, string>
  >;
  for (const name of NAMES) {
    const review = fromSnapshot(
      JSON.parse(await readFile(join(dir, `review.${name}.json`), "utf8")) as Snapshot,
    );
    expect(review.snapshot.organization).toBe(name);
    const state = emulators[name].state();
    const expected = expectedAccess(state);
    const got = review.people.flatMap((p) =>
      p.access.map((a) => `${p.id}|${a.workspace}|${a.permissions.join(" ")}`),
    );
    expect(got.sort()).toEqual([...expected.rows].map(([k, v]) => `${k}|${v.permissions.join(" ")}`).sort());
    for (const m of state.mappings)
      expect(review.people.find((p) => p.id === m.id)?.login, `${name} ${m.id}`).toBe(
        loginOf(state, m.id, () => name === "gamma", { caller: "admin" }),
      );
    // The combined CSV holds this organization's rows, one per person x workspace (or one per person with none).
    const rows = combined.filter((row) => row["organization"] === name);
    expect(rows.length).toBe(review.people.reduce((n, p) => n + Math.max(1, p.access.length), 0));
  }
  // gamma signs in through OIDC: its SSO person is external; beta's, with no login, revoked and still holding access.
  const beta = JSON.parse(await readFile(join(dir, "review.beta.json"), "utf8")) as Snapshot;
  expect(beta.findings.some((f) => f.kind === "revokedWithAccess" && f.person === "sso")).toBe(true);
  const gamma = fromSnapshot(JSON.parse(await readFile(join(dir, "review.gamma.json"), "utf8")) as Snapshot);
  expect(gamma.people.find((p) => p.id === "sso")?.status).toBe("external");
  expect(gamma.findings.some((f) => f.kind === "revokedWithAccess")).toBe(false);
  const org = await readFile(join(dir, "all-organization.csv"), "utf8");
  expect(org.split("\r\n")[0]).toBe(
    "organization,assignee_type,assignee,email,permissions,privileged,people,managed,snapshot_organization,snapshot_listed_at,snapshot_usersync_version,snapshot_digest",
  );
});

/** `usersync review` in this process (no listing: --from reads files only), its stdout and stderr. */
async function inProcess(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const c = captureIo({ cwd: dir });
  // Paths of files are the process's own (relative ones would be vitest's folder): made absolute.
  const absolute = argv.map((a) => (/\.(json|csv|html)$/.test(a) ? join(dir, a) : a));
  const code = await main(["review", "--config", join(dir, "usersync.yaml"), ...absolute], c.io);
  return { code, stdout: c.out(), stderr: c.err() };
}

it("--from --all-targets renders each organization's snapshot and the same combined CSV (the CronJob's containers)", async () => {
  // The listing of the test above wrote review.<name>.json and all.csv; no token is given here.
  const csv = await inProcess([
    "--from",
    "review.json",
    "--all-targets",
    "--format",
    "csv",
    "--combined-csv",
    "from.csv",
  ]);
  expect(csv.code, csv.stderr).toBe(0);
  // Files only; stdout says each organization's code, as a listing over the targets does.
  expect(csv.stdout).toMatch(/^\nTargets: 3, exit 0 /);
  for (const name of NAMES) expect(csv.stdout).toMatch(new RegExp(`^  ${name} +exit 0 `, "m"));
  for (const suffix of ["", "-organization", "-findings"])
    expect(await readFile(join(dir, `from${suffix}.csv`), "utf8"), suffix).toBe(
      await readFile(join(dir, `all${suffix}.csv`), "utf8"),
    );
  const html = await inProcess([
    "--from",
    "review.json",
    "--all-targets",
    "--format",
    "html",
    "--out",
    "page.html",
  ]);
  expect(html.code, html.stderr).toBe(0);
  for (const name of NAMES) {
    const one = await inProcess(["--from", `review.${name}.json`, "--format", "html"]);
    expect(await readFile(join(dir, `page.${name}.html`), "utf8"), name).toBe(one.stdout);
  }
  // One organization's snapshot missing: that one fails (exit 4, its error line names it), the others are written.
  await rm(join(dir, "review.beta.json"));
  const partial = await inProcess([
    "--from",
    "review.json",
    "--all-targets",
    "--format",
    "html",
    "--out",
    "again.html",
  ]);
  expect(partial.code).toBe(4);
  expect(partial.stderr).toContain(`"organization":"beta"`);
  expect(partial.stdout).toContain("Targets: 3, exit 4 ");
  expect(partial.stdout).toMatch(/^ {2}beta +exit 4 /m);
  expect(partial.stdout).toMatch(/^ {2}alpha +exit 0 /m);
  await readFile(join(dir, "again.alpha.html"), "utf8");
  await readFile(join(dir, "again.gamma.html"), "utf8");
});
