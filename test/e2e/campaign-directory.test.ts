/**
 * The campaign for a directory source and three organizations, through the built CLI: one Graph
 * stand-in (Entra) feeds alpha, beta and gamma (an emulator each). Each organization's review is
 * its own campaign (docs/audits.md, "Many organizations"): the sales lead decides in the page
 * (its decisions file), IT in the CSV; remediate makes, per organization, the plan for the
 * hand-made grant and the removal list naming the Entra group for the access the directory gives;
 * until the directory's owner acts, that revocation is pending at the source; after it and the
 * next sync, every close-out shows full coverage and each revocation verified gone with its time.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorSignIn } from "../../src/emulator/types.js";
import type { GraphStandIn } from "../../src/emulator/graph/server.js";
import { entraSettings, G, SECRET, startStandIn, TENANT_ID, U } from "../helpers/entra.js";
import { runCli, withTempDir } from "./run-cli.js";

const NAMES = ["alpha", "beta", "gamma"] as const;
const SALES = "sales-lead@contoso.com";
const IT = "it@contoso.com";
const OIDC: EmulatorSignIn = {
  oauthIssuerLocation: "https://login.microsoftonline.com/t/v2.0",
  oauthSubjectIdClaim: "oid",
};
const env: Record<string, string> = { USERSYNC_ENTRA_CLIENT_SECRET: SECRET };
for (const n of NAMES) env[`USERSYNC_TOKEN_${n.toUpperCase()}`] = `${n}-token`;

let graph: GraphStandIn;
const orgs = {} as Record<(typeof NAMES)[number], EmulatorHandle>;
beforeAll(async () => {
  graph = await startStandIn();
  for (const n of NAMES)
    orgs[n] = await startEmulator({
      port: 0,
      tokens: { [`${n}-token`]: "admin" },
      signIn: OIDC,
      seed: {
        workspaces: [
          { id: "sales", name: "Sales" },
          { id: "finance", name: "Finance" },
        ],
      },
    });
});
afterAll(async () => {
  for (const n of NAMES) await orgs[n]?.close();
  await graph?.close();
});

type Campaign = {
  id: string;
  snapshot: { digest: string };
  rows: Array<{ rowId: string; reviewers: string[] }>;
};

describe("a campaign for an Entra-fed estate of three organizations", { timeout: 900_000 }, () => {
  it("opens per organization, merges page and CSV decisions, remediates, applies and closes", async () => {
    await withTempDir(async (dir) => {
      const cli = async (args: string[], want = 0) => {
        const r = await runCli(args, { cwd: dir, env });
        expect(r.code, `${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(want);
        return r;
      };
      const entra = entraSettings(graph.url, {
        groups: [
          { displayName: "Analytics Team", parents: "directory", workspaces: { sales: ["VIEW"] } },
          { objectId: G.allStaff },
        ],
      });
      writeFileSync(
        join(dir, "usersync.yaml"),
        stringify({
          source: { type: "entra", entra },
          permissions: { workspaces: "all" },
          execution: { requestsPerSecond: 10_000 },
          review: { reviewers: { workspaces: { sales: SALES }, default: IT } },
          targets: NAMES.map((name) => ({
            name,
            baseUrl: orgs[name].url,
            allowInsecureHttp: true,
            select: { all: true },
          })),
        }),
      );
      await cli(["apply", "--all-targets", "--yes"]);
      // A grant made by hand in each organization: usersync may take it away itself.
      for (const n of NAMES) {
        const ken = orgs[n].state().mappings.find((m) => m.email === "ken@contoso.com")!;
        const r = await fetch(`${orgs[n].url}/api/v1/actions/workspaces/finance/managePermissions`, {
          method: "POST",
          headers: { authorization: `Bearer ${n}-token`, "content-type": "application/json" },
          body: JSON.stringify([{ assigneeIdentifier: { id: ken.id, type: "user" }, permissions: ["VIEW"] }]),
        });
        expect(r.status, await r.text()).toBeLessThan(300);
      }
      await cli(["review", "--all-targets", "--format", "json", "--out", "q.json"]);
      // Each organization's campaign from its own snapshot: q.json is q.alpha.json, c.json c.alpha.json.
      await cli([
        "campaign",
        "open",
        "--all-targets",
        "--review",
        "q.json",
        "--campaign",
        "c.json",
        "--csv",
        "c.csv",
      ]);
      const campaigns = {} as Record<string, Campaign>;
      for (const n of NAMES)
        campaigns[n] = JSON.parse(readFileSync(join(dir, `c.${n}.json`), "utf8")) as Campaign;
      const ADA = "ada_contoso.com|sales";
      const KEN = "ken_contoso.com|finance";
      for (const n of NAMES) {
        const campaign = campaigns[n]!;
        // The sales lead decides in the page: its download.
        const page = {
          formatVersion: 1,
          kind: "usersync-campaign-decisions",
          campaign: campaign.id,
          digest: campaign.snapshot.digest,
          decisions: campaign.rows
            .filter((r) => r.reviewers.includes(SALES))
            .map((r) => ({
              rowId: r.rowId,
              decision: r.rowId === ADA ? "revoke" : "keep",
              reviewer: SALES,
              decidedAt: "2029-12-01T10:00:00.000Z",
            })),
        };
        writeFileSync(join(dir, `sales.${n}.json`), JSON.stringify(page));
        // IT fills the CSV in a spreadsheet: the two last columns.
        const csv = readFileSync(join(dir, `c.${n}.csv`), "utf8").split("\r\n");
        const filled = [
          csv[0],
          ...csv
            .slice(1)
            .filter((l) => l.includes(IT))
            .map((l) => l.replace(/,,$/, l.startsWith(`${KEN},`) ? ",revoke,granted by hand" : ",keep,")),
        ];
        writeFileSync(join(dir, `it.${n}.csv`), `${filled.join("\r\n")}\r\n`);
        await cli([
          "campaign",
          "decide",
          "--campaign",
          `c.${n}.json`,
          "--decisions",
          `d.${n}.json`,
          `sales.${n}.json`,
        ]);
        const merged = await cli([
          ...["campaign", "decide", "--campaign", `c.${n}.json`, "--decisions", `d.${n}.json`],
          ...["--reviewer", IT, `it.${n}.csv`],
        ]);
        const total = campaign.rows.length;
        expect(merged.stdout).toContain(`coverage: ${total} of ${total} row(s) decided (100%)`);
      }
      // Remediate lists each organization: its files are its own (c.json is c.alpha.json).
      const rem = await cli([
        ...["campaign", "remediate", "--all-targets", "--campaign", "c.json", "--decisions", "d.json"],
        ...["--out", "r.json", "--removals", "removals.csv"],
      ]);
      for (const n of NAMES) {
        expect(rem.stdout).toContain(`in the service (plan r.${n}.json): 1 step(s)`);
        // The directory's owner gets the Entra group, not only the user group it feeds.
        expect(readFileSync(join(dir, `removals.${n}.csv`), "utf8").split("\r\n")[1]).toBe(
          `removeFromGroup,Entra ID tenant ${TENANT_ID} group Analytics Team (${G.analytics}),analytics_team,,,ada@contoso.com,ada_contoso.com,${ADA},revoke,${SALES}`,
        );
      }
      await cli(["apply", "--all-targets", "--plan", "r.json", "--yes", "--journal", "j.jsonl"]);
      for (const n of NAMES)
        expect(orgs[n].state().workspaces?.find((w) => w.id === "finance")?.permissions ?? []).toEqual([]);
      const closeArgs = (n: string, after: string) => [
        ...["campaign", "close", "--campaign", `c.${n}.json`, "--decisions", `d.${n}.json`],
        ...["--remedies", `r.${n}.remedies.json`, "--journal", `j.${n}.jsonl`, "--after", after],
        ...["--signed-by", "ciso@contoso.com", "--out", `close.${n}.json`],
      ];
      type Close = {
        summary: Record<string, number>;
        revocations: Array<{ rowId: string; status: string; carriedOut?: string; reviewer: string }>;
      };
      const closeOf = (n: string) => JSON.parse(readFileSync(join(dir, `close.${n}.json`), "utf8")) as Close;
      // Before the directory's owner acts, the sync gives Ada's access back: pending at the source.
      await cli(["review", "--all-targets", "--format", "json", "--out", "mid.json"]);
      await cli(closeArgs("alpha", "mid.alpha.json"), 2); // exit 2: a revocation is pending
      expect(closeOf("alpha").summary).toMatchObject({ revocations: 2, done: 1, pending: 1 });
      // The owner takes Ada out of the Entra group the list names; the next sync carries it out.
      graph.changes.removeMember(G.analytics, U.ada);
      await cli(["apply", "--all-targets", "--yes", "--journal", "j.jsonl"]);
      await cli(["review", "--all-targets", "--format", "json", "--out", "after.json"]);
      for (const n of NAMES) {
        await cli(closeArgs(n, `after.${n}.json`));
        const close = closeOf(n);
        expect(close.summary).toMatchObject({ revocations: 2, done: 2, pending: 0, decided: 4 });
        expect(close.revocations.map((r) => [r.rowId, r.status, r.reviewer, typeof r.carriedOut])).toEqual([
          [ADA, "done", SALES, "string"],
          [KEN, "done", IT, "string"],
        ]);
      }
    });
  });
});
