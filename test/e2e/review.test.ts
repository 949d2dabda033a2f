/**
 * Issue 39: the access review through the built CLI against the emulator seeded with the demo
 * organization (plus what a review must catch: a revoked leaver still in a group, a hand-made
 * direct grant, organization MANAGE, a group's MANAGE on a workspace, hand-made filters, a
 * group that should carry a filter and does not). Every number is checked against an answer
 * built here, independently, from the emulator's store (not by calling usersync's code): who
 * reaches which workspace with which permissions, which filters apply, organization permissions,
 * login status. Then --since after an apply, the CSV, the JSON schema, and --detailed-exitcode.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv } from "ajv";
import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorState } from "../../src/emulator/types.js";
import type { Review } from "../../src/review/types.js";
import type { Snapshot } from "../../src/review/snapshot.js";
import { fromSnapshot } from "../../src/review/from-snapshot.js";
import { ROOT, runCli } from "./run-cli.js";
import { expectedAccess, expectedOrganization, loginOf, type Expected } from "./review-expected.js";
import { CLAIMED, demoSeed } from "./review-seed.js";

/** A saved review: its snapshot as written, and the model the renderers read from it. */
async function load(file: string): Promise<Review & { saved: Snapshot }> {
  const saved = JSON.parse(await readFile(join(dir, file), "utf8")) as Snapshot;
  return Object.assign(fromSnapshot(saved), { saved });
}

const TOKEN = "review-e2e-token";
let emulator: EmulatorHandle;
let dir: string;

const CONFIG = (url: string): string => `target:
  baseUrl: ${url}
source:
  desired: ${join(ROOT, "fixtures/demo/users.yaml")}
policy:
  mode: incremental
  deletions: revoke
identity:
  passwords: none
permissions:
  workspaces: all
dataFilters:
  workspaces: all
`;

const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_LOGGING_FORMAT: "json" };
const run = (args: string[]) => runCli(args, { cwd: dir, env });

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: await demoSeed() });
  dir = await mkdtemp(join(tmpdir(), "usersync-review-"));
  await writeFile(join(dir, "usersync.yaml"), CONFIG(emulator.url));
});

afterAll(async () => {
  await emulator?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function compareWithStore(review: Review, state: EmulatorState): Expected {
  const expected = expectedAccess(state);
  const got = new Map<string, string>();
  for (const p of review.people)
    for (const a of p.access)
      got.set(
        `${p.id}|${a.workspace}`,
        `${a.permissions.join(" ")} / ${a.granted.join(" ")} / ${a.reaches} / ${a.filters
          .map((f) => f.id)
          .sort()
          .join(" ")}`,
      );
  expect(Object.fromEntries([...got].sort())).toEqual(
    Object.fromEntries(
      [...expected.rows]
        .sort()
        .map(([k, v]) => [
          k,
          `${v.permissions.join(" ")} / ${v.granted.join(" ")} / ${v.reaches} / ${v.filters.join(" ")}`,
        ]),
    ),
  );
  const org = expectedOrganization(state);
  for (const p of review.people) expect(p.organizationPermissions, p.key).toEqual(org.get(p.id ?? "") ?? []);
  // Every mapping and every login no mapping points at is a person of the review.
  expect(review.people.length).toBe(state.mappings.length + expected.loginsOnly);
  for (const m of state.mappings)
    expect(review.people.find((p) => p.id === m.id)?.login, m.id).toBe(
      loginOf(state, m.id, (id) => id === "contractor.sso", { caller: "admin", claimedDomains: CLAIMED }),
    );
  return expected;
}

/** Every dated row (`person|workspace`) and person (id) of a review, with its lastChange. */
function dated(review: Review): { rows: Record<string, string>; people: Record<string, string> } {
  const rows: Record<string, string> = {};
  const people: Record<string, string> = {};
  for (const p of review.people) {
    if (p.lastChange !== undefined) people[p.id ?? p.key] = p.lastChange;
    for (const a of p.access) if (a.lastChange !== undefined) rows[`${p.id}|${a.workspace}`] = a.lastChange;
  }
  return sorted({ rows, people });
}

function sorted<T extends Record<string, Record<string, string>>>(o: T): T {
  return Object.fromEntries(
    Object.entries(o).map(([k, v]) => [
      k,
      Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))),
    ]),
  ) as T;
}

const interval = (previous: Review, current: Review): string =>
  `${previous.snapshot.generatedAt}/${current.snapshot.generatedAt}`;

/**
 * What a review of `now` taken with `--since` a review of `was` dates, from the two stores alone:
 * a row is dated when it is new or its permissions or filters' MAQL differ; a person when they are
 * new, or a row of theirs is new, changed or gone, or their organization permissions or login differ.
 */
function expectedDates(
  was: EmulatorState,
  now: EmulatorState,
  when: string,
): { rows: Record<string, string>; people: Record<string, string> } {
  const sig = (state: EmulatorState): Map<string, string> => {
    const maql = new Map((state.dataFilters ?? []).map((f) => [f.id, f.maql]));
    return new Map(
      [...expectedAccess(state).rows].map(([k, v]) => [
        k,
        `${v.permissions.join(" ")} / ${v.filters
          .map((id) => maql.get(id))
          .sort()
          .join(" AND ")}`,
      ]),
    );
  };
  const [before, after] = [sig(was), sig(now)];
  const rows: Record<string, string> = {};
  const people: Record<string, string> = {};
  for (const [k, v] of after) if (before.get(k) !== v) rows[k] = when;
  for (const k of [...Object.keys(rows), ...[...before.keys()].filter((k) => !after.has(k))])
    people[k.split("|")[0]!] = when;
  const [orgWas, orgNow] = [expectedOrganization(was), expectedOrganization(now)];
  const external = (id: string) => id === "contractor.sso";
  for (const m of now.mappings) {
    const old = was.mappings.find((x) => x.id === m.id);
    if (
      old === undefined ||
      String(orgWas.get(m.id)) !== String(orgNow.get(m.id)) ||
      loginOf(was, m.id, external, { caller: "admin", claimedDomains: CLAIMED }) !==
        loginOf(now, m.id, external, { caller: "admin", claimedDomains: CLAIMED })
    )
      people[m.id] = when;
  }
  return sorted({ rows, people });
}

describe("usersync review against the demo organization", () => {
  let review: Review;
  it("lists with GETs only and answers who reaches what, as the store says", async () => {
    emulator.resetLog();
    const r = await run(["review", "--format", "json", "--out", "review.json", "--detailed-exitcode"]);
    expect(r.code, r.stderr).toBe(2); // findings present
    expect(emulator.requestLog().every((e) => e.method === "GET")).toBe(true);
    review = await load("review.json");
    compareWithStore(review, emulator.state());
    expect(review.snapshot).toMatchObject({
      usersyncVersion: expect.any(String),
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    // No request per person: the listing is by assignee or by workspace, in pages.
    expect(review.evidence.requests).toBeLessThan(40);
  });

  it("gives reasons: group chain, hierarchy, direct", () => {
    const knuth = review.people.find((p) => p.id === "donald.knuth")!;
    const emea = knuth.access.find((a) => a.workspace === "sales-emea")!;
    expect(emea.reasons.map((r) => [r.kind, r.holder.id, r.groupChain.join(">"), r.grantedOn])).toEqual([
      ["group", "sales-emea", "sales-emea", "sales-emea"],
      ["hierarchy", "sales", "sales-emea>sales", "sales"],
    ]);
    expect(emea.manage).toBe(true);
    // The hand-made filter of sales narrows sales-emea below it; it is not usersync's.
    expect(emea.filters.map((f) => [f.id, f.fromParent, f.managed])).toEqual([
      ["hand-sales-region", true, false],
    ]);
    const ada = review.people.find((p) => p.id === "ada.lovelace")!;
    expect(ada.access.find((a) => a.workspace === "finance")?.reasons[0]).toMatchObject({
      kind: "direct",
      managed: false,
    });
  });

  it("statuses and findings", () => {
    const status = (id: string) => review.people.find((p) => p.id === id)?.status;
    // The desired state marks the leaver absent: a leaver (login revoked), whom the source no longer has.
    expect(status("leaver")).toBe("leaver");
    const leaver = review.people.find((p) => p.id === "leaver")!;
    expect([leaver.login, leaver.sourceStatus, leaver.leaver]).toEqual(["revoked", "absent", true]);
    expect(status("admin")).toBe("protected");
    expect(status("contractor.sso")).toBe("external");
    expect(review.people.find((p) => p.key === "login:visitor@partner.example")?.status).toBe("loginOnly");
    const f = review.findings.map((x) => `${x.kind} ${x.person} ${x.workspace ?? ""}`.trim());
    expect(f).toContain("revokedWithAccess leaver");
    expect(f).toContain("handMadeDirectGrant ada.lovelace finance");
    // The API token's own organization MANAGE is how the review lists anything: no finding.
    expect(f.filter((x) => x.includes(" admin"))).toEqual([]);
    // sales-emea's MANAGE is not what the desired state gives (VIEW, ANALYZE, EXPORT).
    expect(f).toContain("privilegedOutsideDesired donald.knuth sales-emea");
    // The desired state gives sales-emea a region filter; nobody made it yet.
    expect(f).toContain("missingDesiredFilter radia.perlman sales-emea");
    expect(f).toContain("accessNoGroupExplains ada.lovelace finance");
    // Only grace.hopper signs in with the shared authenticationId; zeta.dup is not her.
    expect(f).toContain("sharedAuthenticationId zeta.dup");
    const zeta = review.people.find((p) => p.id === "zeta.dup")!;
    expect([zeta.login, zeta.email, zeta.shadowedBy]).toEqual([
      "shadowed",
      "zeta@demo.example",
      "grace.hopper",
    ]);
    expect(review.people.find((p) => p.id === "grace.hopper")?.email).toBe("grace.hopper@demo.example");
    // A login whose domain the identity provider claims is external, never revokedWithAccess.
    expect(f.filter((x) => x.includes("ext.partner") || x.includes("addon.only"))).not.toContain(
      "revokedWithAccess ext.partner",
    );
    // An add-on without VIEW is shown as such, and reaches nothing.
    const addon = review.people.find((p) => p.id === "addon.only")!.access;
    expect(addon.map((a) => [a.workspace, a.reaches, a.granted.join(" ")])).toEqual([
      ["finance", false, "CREATE_FILTER_VIEW"],
    ]);
    // The caller: protected, signs in with its token (external), reaches every workspace.
    const admin = review.people.find((p) => p.id === "admin")!;
    expect(admin.status).toBe("protected");
    expect(admin.access.length).toBe(review.workspaces.length);
    expect(admin.access.every((a) => a.reasons.some((r) => r.kind === "organization"))).toBe(true);
    // inLine never stands beside a finding; every finding names its snapshot row.
    const withFinding = new Set(review.findings.map((x) => x.person));
    for (const p of review.people) if (withFinding.has(p.key)) expect(p.agreement, p.key).not.toBe("inLine");
    const rows = new Set((review as Review & { saved: Snapshot }).saved.rows.map((r) => r.rowId));
    for (const x of review.findings) if (x.rowId !== undefined) expect(rows.has(x.rowId), x.rowId).toBe(true);
    // The hierarchy grant says on its own workspace that it reaches the ones below.
    const sales = review.people.find((p) => p.id === "donald.knuth")!;
    expect(sales.access.find((a) => a.workspace === "sales")?.reasons[0]?.text).toMatch(
      /also on the \d+ workspace\(s\) below/,
    );
    expect(review.summary.findings).toBe(review.findings.length);
  });

  it("validates against docs/review.schema.json", async () => {
    const schema = JSON.parse(await readFile(join(ROOT, "docs/review.schema.json"), "utf8")) as object;
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    expect(
      validate((review as Review & { saved: Snapshot }).saved),
      JSON.stringify(validate.errors?.slice(0, 3)),
    ).toBe(true);
  });

  it("CSV: one row per person x workspace (one for a person with none), and the organization CSV", async () => {
    const r = await run(["review", "--format", "csv", "--out", "review.csv"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseCsv(await readFile(join(dir, "review.csv"), "utf8"), { columns: true }) as Array<
      Record<string, string>
    >;
    const expectedRows = review.people.reduce((n, p) => n + Math.max(1, p.access.length), 0);
    expect(rows.length).toBe(expectedRows);
    const expected = expectedAccess(emulator.state());
    for (const row of rows.filter((x) => x["workspace"] !== ""))
      expect(row["permissions"], `${row["person"]} ${row["workspace"]}`).toBe(
        expected.rows.get(`${row["person"]}|${row["workspace"]}`)?.permissions.join(" "),
      );
    const leaver = rows.find((x) => x["person"] === "leaver")!;
    expect(leaver).toMatchObject({
      status: "leaver",
      login: "revoked",
      source_status: "absent",
      workspace: "finance",
      reason: "group finance: EXPORT VIEW",
      permissions: "EXPORT EXPORT_PDF EXPORT_TABULAR VIEW",
      granted_permissions: "EXPORT VIEW",
      row_id: "leaver|finance",
      snapshot_digest: review.snapshot.digest.length > 0 ? expect.stringMatching(/^sha256:/) : "",
    });
    // A login with no mapping is its e-mail in the person column.
    expect(rows.some((x) => x["person"] === "visitor@partner.example")).toBe(true);
    const findings = parseCsv(await readFile(join(dir, "review-findings.csv"), "utf8"), {
      columns: true,
    }) as Array<Record<string, string>>;
    expect(findings.length).toBeGreaterThan(0);
    expect(new Set(findings.map((x) => x["snapshot_digest"])).size).toBe(1);
    const org = parseCsv(await readFile(join(dir, "review-organization.csv"), "utf8"), {
      columns: true,
    }) as Array<Record<string, string>>;
    expect(org.map((o) => [o["assignee"], o["permissions"], o["privileged"]])).toEqual([
      ["admin", "MANAGE", "yes"],
      ["finance", "SELF_CREATE_TOKEN", "no"],
    ]);
  });

  it("Markdown: the summary first, then the findings", async () => {
    const r = await run(["review", "--format", "markdown"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.indexOf("## Summary")).toBeLessThan(r.stdout.indexOf("## Findings"));
    expect(r.stdout).toMatch(/\| high \| revokedWithAccess \| leaver@demo\.example \|/);
  });

  it("--since after an apply: people came, access gained, as the two stores differ", async () => {
    const before = emulator.state();
    const a = await run(["apply", "--yes"]);
    expect([0, 3], a.stderr).toContain(a.code);
    const r = await run(["review", "--format", "json", "--out", "after.json", "--since", "review.json"]);
    expect(r.code, r.stderr).toBe(0);
    const after = await load("after.json");
    compareWithStore(after, emulator.state());
    const was = expectedAccess(before).rows;
    const now = expectedAccess(emulator.state()).rows;
    const gained = [...now.keys()].filter((k) => !was.has(k)).sort();
    const lost = [...was.keys()].filter((k) => !now.has(k)).sort();
    const of = (kind: string) =>
      after
        .changes!.changes.filter((c) => c.kind === kind)
        .map((c) => `${c.person.replace(/^user\//, "")}|${c.workspace}`)
        .sort();
    expect(of("accessGained")).toEqual(gained);
    expect(of("accessLost")).toEqual(lost);
    expect(after.changes!.since.digest).toBe(review.snapshot.digest);
    const came = after.people.filter(
      (p) => !before.mappings.some((m) => m.id === p.id) && p.id !== undefined,
    );
    expect(after.changes!.counts.personCame ?? 0).toBeGreaterThanOrEqual(came.length);
    // The region filter now made for sales-emea narrows it for its people.
    expect(of("filtersNarrowed")).toContain("radia.perlman|sales-emea");
    // A first review dates nothing; this one dates what differs between the two stores.
    expect(dated(review)).toEqual({ rows: {}, people: {} });
    expect(dated(after)).toEqual(expectedDates(before, emulator.state(), interval(review, after)));
  });

  it("last_change: carried from review to review, and a hand change dated by the review that saw it", async () => {
    const after = await load("after.json");
    const quiet = await run(["review", "--format", "json", "--out", "quiet.json", "--since", "after.json"]);
    expect(quiet.code, quiet.stderr).toBe(0);
    const carried = await load("quiet.json");
    expect(carried.changes!.changes).toEqual([]);
    expect(dated(carried)).toEqual(dated(after));
    expect(Object.keys(dated(carried).rows).length).toBeGreaterThan(0);

    // By hand: a direct EXPORT grant to someone on a workspace they did not reach.
    const before = emulator.state();
    const reach = expectedAccess(before).rows;
    const [who, ws] = before.mappings
      .filter((m) => m.id !== "admin")
      .flatMap((m) => (before.workspaces ?? []).map((w) => [m.id, w.id] as const))
      .find(([m, w]) => !reach.has(`${m}|${w}`))!;
    const res = await fetch(`${emulator.url}/api/v1/actions/workspaces/${ws}/managePermissions`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify([{ assigneeIdentifier: { id: who, type: "user" }, permissions: ["EXPORT"] }]),
    });
    expect(res.status).toBeLessThan(300);
    const r = await run(["review", "--format", "csv", "--out", "later.csv", "--since", "quiet.json"]);
    expect(r.code, r.stderr).toBe(0);
    const r2 = await run(["review", "--format", "json", "--out", "later.json", "--since", "quiet.json"]);
    expect(r2.code, r2.stderr).toBe(0);
    const later = await load("later.json");
    const fresh = expectedDates(before, emulator.state(), interval(carried, later));
    expect(Object.keys(fresh.rows)).toEqual([`${who}|${ws}`]);
    // What changed now is dated now; everything else keeps the date the earlier review gave it.
    const want = {
      rows: { ...dated(carried).rows, ...fresh.rows },
      people: { ...dated(carried).people, ...fresh.people },
    };
    expect(dated(later)).toEqual(sorted(want));
    const schema = JSON.parse(await readFile(join(ROOT, "docs/review.schema.json"), "utf8")) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate(later.saved), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    // The CSV says the same, row by row (its review is a second listing of the same store).
    const rows = parseCsv(await readFile(join(dir, "later.csv"), "utf8"), { columns: true }) as Array<
      Record<string, string>
    >;
    const csvDates = Object.fromEntries(
      rows
        .filter((x) => x["workspace"] !== "" && x["last_change"] !== "")
        .map((x) => [`${x["person"]}|${x["workspace"]}`, x["last_change"]!.split("/")[0]]),
    );
    expect(csvDates).toEqual(
      Object.fromEntries(Object.entries(want.rows).map(([k, v]) => [k, v.split("/")[0]])),
    );
  });

  it("one snapshot: --from renders the bytes a direct run wrote; verify; a tampered --since is refused", async () => {
    const one = await run(["review", "--format", "json", "--out", "one.json"]);
    expect(one.code, one.stderr).toBe(0);
    for (const format of ["csv", "markdown", "html"]) {
      const direct = await run(["review", "--from", "one.json", "--format", format]);
      expect(direct.code, direct.stderr).toBe(0);
      const snap = JSON.parse(await readFile(join(dir, "one.json"), "utf8")) as Snapshot;
      expect(direct.stdout).toContain(snap.header.digest);
    }
    const json = await run(["review", "--from", "one.json", "--format", "json"]);
    expect(json.stdout).toBe(await readFile(join(dir, "one.json"), "utf8"));
    const v = await run(["review", "verify", "one.json"]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/verified/);
    // Edited by hand: the organization MANAGE holder's rows deleted.
    const snap = JSON.parse(await readFile(join(dir, "one.json"), "utf8")) as Snapshot;
    snap.rows = snap.rows.filter((r) => r.person !== "admin");
    await writeFile(join(dir, "edited.json"), JSON.stringify(snap));
    const bad = await run(["review", "verify", "edited.json"]);
    expect(bad.code).toBe(4);
    const since = await run(["review", "--format", "json", "--since", "edited.json"]);
    expect(since.code).toBe(4);
    expect(since.stderr).toMatch(/does not match its digest/);
    const anyway = await run(["review", "--format", "json", "--since", "edited.json", "--allow-unverified"]);
    expect(anyway.code, anyway.stderr).toBe(0);
  }, 240_000); // nine runs of the CLI: slow on a loaded machine

  it("--format html writes one self-contained page of the same review (test/report/review-html.test.ts opens it in Chromium)", async () => {
    const r = await run(["review", "--format", "html"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^<!doctype html>/i);
    expect(r.stdout).toContain("</html>");
    // Loads nothing: no external script, style sheet or image.
    expect(r.stdout).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']https?:/i);
  });
});
