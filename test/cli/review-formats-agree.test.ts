/**
 * Issue 46, "Done when": for three organizations seeded with every case of the issue (the demo
 * organization of review-seed.ts: a leaver, a shared authenticationId, a claimed domain, an add-on
 * without VIEW, hierarchy grants, organization MANAGE, hand-made filters; gamma signs in through
 * OIDC), one listing becomes one snapshot per organization, and the CSV, Markdown and HTML are
 * rendered from it (`review --from`, as the shipped CronJob does). Every format agrees row by row
 * with an answer built from each emulator's store by the service's rules (review-expected.ts, no
 * code of usersync's): effective and granted permissions, reach, the reasons (who holds the
 * grant, where), the filters' MAQL, each person's login, and the findings the rules decide
 * (revokedWithAccess, sharedAuthenticationId). Each snapshot verifies, and one edited by hand
 * does not, nor is it accepted by --since. Then a sync (apply: the leaver's access revoked and
 * dated in each organization's state file), a hand change in each organization and a second
 * listing with --since: every format names the same access gained and lost as the two stores
 * differ, and dates the leaver's removals with the sync's time and run id. In-process against
 * three emulators on sockets.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { captureIo } from "../helpers/capture-io.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorState } from "../../src/emulator/types.js";
import { fromSnapshot } from "../../src/review/from-snapshot.js";
import type { Snapshot } from "../../src/review/snapshot.js";
import type { Review } from "../../src/review/types.js";
import { ROOT } from "../e2e/run-cli.js";
import { expectedAccess, expectedOrganization, loginOf } from "../e2e/review-expected.js";
import { CLAIMED, demoSeed } from "../e2e/review-seed.js";

const NAMES = ["alpha", "beta", "gamma"] as const;
type Name = (typeof NAMES)[number];
const OIDC = (name: Name): boolean => name === "gamma";
const emulators = {} as Record<Name, EmulatorHandle>;
const USERS = join(ROOT, "fixtures/demo/users.yaml");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-review-formats-"));
  for (const name of NAMES)
    emulators[name] = await startEmulator({
      port: 0,
      tokens: { [`${name}-token`]: "admin" },
      seed: await demoSeed(),
      ...(OIDC(name) ? { signIn: { oauthIssuerLocation: "https://sso.gamma.example" } } : {}),
    });
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      identity: { passwords: "none" },
      policy: { mode: "incremental", deletions: "revoke" },
      permissions: { workspaces: "all" },
      dataFilters: { workspaces: "all" },
      // Each organization's own (state.<name>.json): apply records its removals there.
      state: { file: join(dir, "state.json") },
      targets: NAMES.map((name) => ({ name, baseUrl: emulators[name].url, desired: USERS })),
    }),
  );
}, 60_000);

afterAll(async () => {
  for (const name of NAMES) await emulators[name]?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `usersync review ARGV` (or another command) in this process: its exit code and stderr. */
async function cli(argv: string[], command = "review"): Promise<{ code: number; stderr: string }> {
  const env = Object.fromEntries(NAMES.map((n) => [`USERSYNC_TOKEN_${n.toUpperCase()}`, `${n}-token`]));
  const { io, err } = captureIo({ env, cwd: dir });
  return { code: await main([command, ...argv], io), stderr: err() };
}

/** The review of every organization (--all-targets), which must succeed. */
async function review(argv: string[]): Promise<void> {
  const { code, stderr } = await cli(["--config", join(dir, "usersync.yaml"), "--all-targets", ...argv]);
  expect(code, stderr).toBe(0);
}

/** One access row as every format is read here: `person|workspace` -> its cells. */
interface Row {
  permissions: string;
  granted?: string;
  reaches?: boolean;
  reasons: string;
  filters: string;
}
type Rows = Record<string, Row>;
const sortedJoin = (xs: readonly string[]): string => [...xs].sort().join(" ");

/** The answer from the store: R3-R11 in review-expected.ts, the reasons by who holds which grant where. */
function expectedRows(state: EmulatorState, detail: "full" | "counts"): Rows {
  const maql = new Map((state.dataFilters ?? []).map((f) => [f.id, f.maql]));
  const closure = (id: string): Set<string> => {
    const out = new Set<string>();
    const todo = [...(state.mappings.find((m) => m.id === id)?.groups ?? [])];
    while (todo.length > 0) {
      const g = todo.pop()!;
      if (out.has(g)) continue;
      out.add(g);
      todo.push(...(state.groups.find((x) => x.id === g)?.parents ?? []));
    }
    return out;
  };
  const out: Rows = {};
  for (const [key, v] of expectedAccess(state).rows) {
    const [id, ws] = key.split("|") as [string, string];
    const groups = closure(id);
    const holder = (g: { user?: string; userGroup?: string }): string | undefined =>
      g.user === id ? id : g.userGroup !== undefined && groups.has(g.userGroup) ? g.userGroup : undefined;
    const reasons: string[] = [];
    const path: string[] = [];
    for (let at: string | undefined = ws; at !== undefined && !path.includes(at);) {
      path.push(at);
      at = state.workspaces?.find((w) => w.id === at)?.parent;
    }
    for (const [i, on] of path.entries())
      for (const g of state.workspaces?.find((w) => w.id === on)?.permissions ?? []) {
        const h = holder(g);
        const gives = i === 0 ? [...(g.permissions ?? []), ...(g.hierarchy ?? [])] : (g.hierarchy ?? []);
        if (h === undefined || gives.length === 0) continue;
        const kind = i > 0 ? "hierarchy" : g.user !== undefined ? "direct" : "group";
        reasons.push(`${kind}:${h}@${on}`);
      }
    for (const o of state.organizationPermissions ?? []) {
      const h = holder(o);
      if (h !== undefined && o.permissions.includes("MANAGE")) reasons.push(`organization:${h}@organization`);
    }
    const filters = v.filters.map((f) => maql.get(f)!);
    out[key] = {
      permissions: v.permissions.join(" "),
      granted: v.granted.join(" "),
      reaches: v.reaches,
      reasons: detail === "full" ? sortedJoin(reasons) : String(reasons.length),
      filters: sortedJoin(filters),
    };
  }
  return out;
}

/** The rows of the review model (the snapshot read back, or the page's embedded data). */
function modelRows(r: Review, detail: "full" | "counts"): Rows {
  const out: Rows = {};
  for (const p of r.people)
    for (const a of p.access)
      out[`${p.id}|${a.workspace}`] = {
        permissions: a.permissions.join(" "),
        granted: a.granted.join(" "),
        reaches: a.reaches,
        reasons:
          detail === "full"
            ? sortedJoin(a.reasons.map((x) => `${x.kind}:${x.holder.id}@${x.grantedOn}`))
            : String(a.reasons.length),
        filters: sortedJoin(a.filters.map((f) => f.maql)),
      };
  return out;
}

const withoutGranted = (rows: Rows): Rows =>
  Object.fromEntries(
    Object.entries(rows).map(([k, { permissions, reasons, filters }]) => [
      k,
      { permissions, reasons, filters },
    ]),
  );

/** The findings a reviewer must see by the rules, from the store and the desired file. */
function expectedFindings(state: EmulatorState, absent: ReadonlySet<string>, oidc: boolean): string[] {
  const rows = expectedAccess(state).rows;
  const org = expectedOrganization(state);
  const out: string[] = [];
  for (const m of state.mappings) {
    const login = loginOf(state, m.id, () => oidc, { caller: "admin", claimedDomains: CLAIMED });
    const holds = [...rows].some(([k, v]) => k.startsWith(`${m.id}|`) && v.reaches) || org.has(m.id);
    if (login === "shadowed") out.push(`sharedAuthenticationId|${m.id}|`);
    if (holds && (login === "revoked" || absent.has(m.id))) out.push(`revokedWithAccess|${m.id}|`);
  }
  return out.sort();
}

/** A Markdown table's rows under the heading that starts with `heading`, cells unescaped. */
function markdownTable(md: string, heading: string): string[][] {
  // After the heading: a blank line, the header row, the separator, then the rows.
  const lines = md
    .slice(md.indexOf(`\n${heading}`))
    .split("\n")
    .slice(3);
  const end = lines.findIndex((l) => !l.startsWith("|"));
  const table = lines.slice(0, end < 0 ? lines.length : end);
  return table.slice(2).map((l) =>
    l
      .slice(2, -2)
      .split(/(?<!\\) \| /)
      .map((c) => c.replace(/\\\|/g, "|").replace(/\\\\/g, "\\")),
  );
}

describe("one snapshot, four formats, three organizations", () => {
  it("JSON, CSV, Markdown and HTML agree row by row with the stores", async () => {
    await review(["--format", "json", "--out", join(dir, "review.json")]);
    for (const format of ["csv", "markdown", "html"])
      await review([
        "--from",
        join(dir, "review.json"),
        "--format",
        format,
        "--out",
        join(dir, `review.${format}`),
      ]);
    const desired = parseYaml(await readFile(USERS, "utf8")) as { users: { id: string; state?: string }[] };
    const absent = new Set(desired.users.filter((u) => u.state === "absent").map((u) => u.id));
    for (const name of NAMES) {
      const state = emulators[name].state();
      const file = (ext: string): string => join(dir, `review.${name}.${ext}`);
      const snapshot = JSON.parse(await readFile(file("json"), "utf8")) as Snapshot;
      const json = fromSnapshot(snapshot);
      const digest = snapshot.header.digest;
      const findingsOf = (r: Review): string[] =>
        r.findings.map((f) => `${f.kind}|${f.person}|${f.workspace ?? ""}`).sort();

      // JSON: every row, its reasons by holder and place; every login; the rules' findings.
      expect(Object.keys(expectedRows(state, "counts")).length, name).toBeGreaterThan(40);
      expect(modelRows(json, "full"), `${name} JSON`).toEqual(expectedRows(state, "full"));
      for (const m of state.mappings)
        expect(json.people.find((p) => p.id === m.id)?.login, `${name} ${m.id}`).toBe(
          loginOf(state, m.id, () => OIDC(name), { caller: "admin", claimedDomains: CLAIMED }),
        );
      const ruled = expectedFindings(state, absent, OIDC(name));
      const kinds = new Set(["revokedWithAccess", "sharedAuthenticationId"]);
      expect(
        findingsOf(json).filter((f) => kinds.has(f.split("|")[0]!)),
        `${name} findings`,
      ).toEqual(ruled);
      expect(ruled.length, name).toBeGreaterThan(0);

      // The snapshot verifies; edited by hand (the organization MANAGE holder's rows gone), it does not.
      expect((await cli(["verify", file("json")])).code, name).toBe(0);
      const edited = { ...snapshot, rows: snapshot.rows.filter((r) => r.person !== "admin") };
      await writeFile(join(dir, `edited.${name}.json`), JSON.stringify(edited));
      expect((await cli(["verify", join(dir, `edited.${name}.json`)])).code, name).toBe(4);

      // HTML: the page's embedded review is the same, and names the snapshot's digest.
      const html = await readFile(file("html"), "utf8");
      const data = /<script type="application\/json" id="review-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
      const page = JSON.parse(data) as Review;
      expect(page.snapshot.digest).toBe(digest);
      expect(modelRows(page, "full"), `${name} HTML`).toEqual(expectedRows(state, "full"));
      expect(findingsOf(page)).toEqual(findingsOf(json));
      expect(page.people.map((p) => [p.key, p.login, p.status])).toEqual(
        json.people.map((p) => [p.key, p.login, p.status]),
      );

      // CSV: one row per person x workspace, the same cells; its findings file; the snapshot named.
      const csv = parseCsv(await readFile(file("csv"), "utf8"), { columns: true }) as Record<
        string,
        string
      >[];
      const csvRows: Rows = {};
      for (const r of csv.filter((x) => x["workspace"] !== ""))
        csvRows[`${r["person"]}|${r["workspace"]}`] = {
          permissions: r["permissions"]!,
          granted: r["granted_permissions"]!,
          reaches: r["reaches"] === "yes",
          reasons: String(r["reason"]!.split(" | ").length),
          filters: sortedJoin(r["filter"] === "" ? [] : r["filter"]!.split(" AND ")),
        };
      expect(csvRows, `${name} CSV`).toEqual(expectedRows(state, "counts"));
      for (const m of state.mappings)
        expect(csv.find((r) => r["person"] === m.id)?.["login"], `${name} CSV ${m.id}`).toBe(
          json.people.find((p) => p.id === m.id)?.login,
        );
      expect(new Set(csv.map((r) => r["snapshot_digest"]))).toEqual(new Set([digest]));
      const findingsCsv = parseCsv(await readFile(join(dir, `review.${name}-findings.csv`), "utf8"), {
        columns: true,
      }) as Record<string, string>[];
      const key = (p: string): string => json.people.find((x) => x.key === p || x.key === `login:${p}`)!.key;
      expect(findingsCsv.map((f) => `${f["kind"]}|${key(f["person"]!)}|${f["workspace"]}`).sort()).toEqual(
        findingsOf(json),
      );

      // Markdown: the access table (person by e-mail), and the findings table.
      const md = await readFile(file("markdown"), "utf8");
      expect(md).toContain(digest);
      const byLabel = new Map(json.people.map((p) => [p.email ?? p.id ?? p.key, p]));
      const mdRows: Rows = {};
      for (const [who, status, , ws, perms, reasons, filter] of markdownTable(md, "## Access")) {
        const p = byLabel.get(who!);
        if (p === undefined) throw new Error(`${name}: ${JSON.stringify([who, status, ws])}`);
        expect(status, `${name} ${who}`).toBe(p.status);
        const filters = filter!.startsWith("**none") || filter === "" ? [] : filter!.split(" AND ");
        mdRows[`${p.id}|${ws}`] = {
          permissions: perms!.replace(/ \(privileged\)$/, ""),
          reasons: String(reasons!.split("; ").length),
          filters: sortedJoin(filters.map((f) => f.replace(/ \(hand-made\)$/, ""))),
        };
      }
      expect(mdRows, `${name} Markdown`).toEqual(withoutGranted(expectedRows(state, "counts")));
      const mdFindings = markdownTable(md, "## Findings").map(
        ([, kind, who, ws]) => `${kind}|${byLabel.get(who!)!.key}|${ws}`,
      );
      expect(mdFindings.sort()).toEqual(findingsOf(json));
    }
  }, 120_000);

  it("a tampered predecessor is refused (exit 4) before anything is listed", async () => {
    const listed = emulators.alpha.requestLog().length;
    const r = await cli([
      "--config",
      join(dir, "usersync.yaml"),
      "--all-targets",
      "--format",
      "json",
      "--out",
      join(dir, "refused.json"),
      "--since",
      join(dir, "edited.json"),
    ]);
    expect(r.code).toBe(4);
    expect(r.stderr, r.stderr).toMatch(/does not match its digest/);
    expect(emulators.alpha.requestLog().length).toBe(listed);
  });

  it("a sync and a hand change between two listings are the same changes in every format, the removals dated", async () => {
    const before = Object.fromEntries(NAMES.map((n) => [n, emulators[n].state()])) as Record<
      Name,
      EmulatorState
    >;
    // A sync: the leaver (state: absent in the source) loses their access (deletions: revoke),
    // dated in each organization's state file.
    const applied = await cli(["--config", join(dir, "usersync.yaml"), "--all-targets", "--yes"], "apply");
    expect([0, 3], applied.stderr).toContain(applied.code);
    // By hand in each organization: a direct EXPORT grant to someone on a workspace they did not reach.
    for (const name of NAMES) {
      const state = before[name];
      const reach = expectedAccess(state).rows;
      const [who, ws] = state.mappings
        .filter((m) => m.id !== "admin")
        .flatMap((m) => (state.workspaces ?? []).map((w) => [m.id, w.id] as const))
        .find(([m, w]) => !reach.has(`${m}|${w}`))!;
      const res = await fetch(`${emulators[name].url}/api/v1/actions/workspaces/${ws}/managePermissions`, {
        method: "POST",
        headers: { authorization: `Bearer ${name}-token`, "content-type": "application/json" },
        body: JSON.stringify([{ assigneeIdentifier: { id: who, type: "user" }, permissions: ["EXPORT"] }]),
      });
      expect(res.status).toBeLessThan(300);
    }
    await review(["--format", "json", "--out", join(dir, "later.json"), "--since", join(dir, "review.json")]);
    for (const format of ["csv", "markdown", "html"])
      await review([
        "--from",
        join(dir, "later.json"),
        "--format",
        format,
        "--out",
        join(dir, `later.${format}`),
      ]);
    for (const name of NAMES) {
      const was = expectedAccess(before[name]).rows;
      const now = expectedAccess(emulators[name].state()).rows;
      const gained = [...now.keys()].filter((k) => !was.has(k)).map((k) => `accessGained|${k}`);
      const lost = [...was.keys()].filter((k) => !now.has(k)).map((k) => `accessLost|${k}`);
      const want = [...gained, ...lost].sort();
      expect(gained.length, name).toBeGreaterThan(0);
      const file = (ext: string): string => join(dir, `later.${name}.${ext}`);
      const json = fromSnapshot(JSON.parse(await readFile(file("json"), "utf8")) as Snapshot);
      const access = (kinds: string[]): string[] =>
        kinds.filter((k) => /^access(Gained|Lost)\|/.test(k)).sort();
      const of = (r: Review): string[] =>
        access(
          r.changes!.changes.map(
            (c) =>
              `${c.kind}|${r.people.find((p) => p.key === c.person)?.id ?? c.person}|${c.workspace ?? ""}`,
          ),
        );
      expect(of(json), `${name} JSON`).toEqual(want);
      // Each access the sync took from the leaver is dated with the time and run the state file recorded.
      const state = JSON.parse(await readFile(join(dir, `state.${name}.json`), "utf8")) as {
        removals?: Record<string, { at: string; runId: string }>;
      };
      const removal = state.removals?.["mapping:leaver"];
      const leaverLost = json.changes!.changes.filter(
        (c) => c.kind === "accessLost" && c.person === "leaver",
      );
      expect(leaverLost.length, name).toBeGreaterThan(0);
      for (const c of leaverLost) expect([c.removedAt, c.runId], name).toEqual([removal?.at, removal?.runId]);
      const html = await readFile(file("html"), "utf8");
      const page = JSON.parse(
        /<script type="application\/json" id="review-data">([\s\S]*?)<\/script>/.exec(html)![1]!,
      ) as Review;
      expect(of(page), `${name} HTML`).toEqual(want);
      const csv = parseCsv(await readFile(file("csv"), "utf8"), { columns: true }) as Record<
        string,
        string
      >[];
      expect(
        access(
          csv
            .filter((r) => r["change"] !== "")
            // A row's changes, "; "-separated (the person's first), each its kind then details.
            .flatMap((r) =>
              r["change"]!.split("; ").map((c) => `${c.split(" ")[0]}|${r["person"]}|${r["workspace"]}`),
            ),
        ),
        `${name} CSV`,
      ).toEqual(want);
      const byLabel = new Map(json.people.map((p) => [p.email ?? p.id ?? p.key, p]));
      const md = markdownTable(await readFile(file("markdown"), "utf8"), "## Changes since").map(
        ([kind, who, ws]) => `${kind}|${byLabel.get(who!)?.id ?? who}|${ws}`,
      );
      expect(access(md), `${name} Markdown`).toEqual(want);
      // The leaver's removals are dated alike in every format.
      const lostWs = leaverLost.map((c) => c.workspace).sort();
      expect(
        page
          .changes!.changes.filter((c) => c.kind === "accessLost" && c.person === "leaver")
          .map((c) => c.removedAt),
      ).toEqual(lostWs.map(() => removal!.at));
      const csvLost = csv.filter((r) => r["person"] === "leaver" && /accessLost/.test(r["change"]!));
      expect(csvLost.map((r) => [r["workspace"], r["last_change"]]).sort()).toEqual(
        lostWs.map((w) => [w, removal!.at]),
      );
      for (const r of csvLost) expect(r["change"]).toContain(`run ${removal!.runId}`);
      const mdText = await readFile(file("markdown"), "utf8");
      expect(mdText.split(`removed by usersync ${removal!.at}, run ${removal!.runId}`).length - 1).toBe(
        lostWs.length,
      );
    }
  }, 120_000);
});
