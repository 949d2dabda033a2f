/**
 * A campaign end to end through the built CLI against one emulator holding the demo organization,
 * with a file source, as docs/audits.md walks it but with what the walk leaves out: one reviewer
 * decides in the page (its decisions file, as test/report/campaign-html.test.ts downloads it),
 * one in the CSV; a reviewer deciding another's rows and a tampered snapshot are refused (exit
 * 4); the leaver's hand-made membership goes by the plan and the others by the file's patch; the
 * close-out shows full coverage, every revocation verified gone with its time, validates against
 * docs/campaign.schema.json and carries a signature the public key verifies.
 */
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { compactVerify } from "jose";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator } from "../../src/emulator/index.js";
import { ROOT, runCli, withTempDir } from "./run-cli.js";

const SALES = "sales-lead@demo.example";
const FINANCE = "finance-lead@demo.example";

describe("a campaign from opening to close-out", { timeout: 600_000 }, () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  beforeAll(async () => {
    emulator = await startEmulator({
      port: 0,
      tokens: { "dev-token": "admin" },
      seed: await loadSeedFile(join(ROOT, "fixtures/demo/organization.yaml")),
    });
  });
  afterAll(() => emulator?.close());

  it("opens, merges a page's and a spreadsheet's decisions, remediates, applies and closes", async () => {
    await withTempDir(async (dir) => {
      const cli = async (args: string[], want = 0) => {
        const r = await runCli(args, { cwd: dir, env: { USERSYNC_TOKEN: "dev-token" } });
        expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(want);
        return r;
      };
      copyFileSync(join(ROOT, "fixtures/demo/users.yaml"), join(dir, "users.yaml"));
      const config = {
        target: { baseUrl: emulator.url },
        source: { desired: "users.yaml" },
        permissions: { workspaces: "all" },
        dataFilters: { workspaces: "all" },
        review: {
          reviewers: {
            workspaces: { sales: SALES },
            groups: { finance: FINANCE },
            default: "it@demo.example",
          },
        },
      };
      writeFileSync(join(dir, "usersync.yaml"), stringify(config));
      await cli(["review", "--format", "json", "--out", "q.json"]);
      const tampered = readFileSync(join(dir, "q.json"), "utf8").replace('"VIEW"', '"MANAGE"');
      writeFileSync(join(dir, "tampered.json"), tampered);
      const refused = await cli(["campaign", "open", "--review", "tampered.json", "--campaign", "t.json"], 4);
      expect(refused.stderr).toMatch(/does not match its digest/);

      const opened = await cli([
        "campaign",
        "open",
        "--review",
        "q.json",
        "--campaign",
        "c.json",
        "--csv",
        "c.csv",
        "--html-dir",
        "pages",
        "--due",
        "2030-01-01",
      ]);
      // The decision pages: an index and a page for each reviewer with rows (the default has none).
      expect(opened.stdout).toContain(
        "decision pages: pages/index.html (2 reviewer page(s), at most 2000 rows each)",
      );
      expect(readdirSync(join(dir, "pages")).sort()).toEqual(
        ["index.html", ...[FINANCE, SALES].map((e) => `${e}.html`)].sort(),
      );
      const campaign = JSON.parse(readFileSync(join(dir, "c.json"), "utf8")) as {
        id: string;
        snapshot: { digest: string };
        rows: Array<{ rowId: string; reviewers: string[] }>;
      };
      const mine = (who: string) => campaign.rows.filter((r) => r.reviewers.includes(who));
      // The finance lead decides in the page: its download.
      const page = {
        formatVersion: 1,
        kind: "usersync-campaign-decisions",
        campaign: campaign.id,
        digest: campaign.snapshot.digest,
        decisions: mine(FINANCE).map((r) => ({
          rowId: r.rowId,
          decision: ["leaver|finance", "dennis.ritchie|finance"].includes(r.rowId) ? "revoke" : "keep",
          reviewer: FINANCE,
          decidedAt: "2029-12-01T10:00:00.000Z",
          ...(r.rowId === "leaver|finance" ? { comment: "left in September" } : {}),
        })),
      };
      writeFileSync(join(dir, "finance.json"), JSON.stringify(page));
      // The sales lead fills the CSV in a spreadsheet.
      const csv = readFileSync(join(dir, "c.csv"), "utf8").split("\r\n");
      const filled = [
        csv[0],
        ...csv
          .slice(1)
          .filter((l) => l.includes(SALES))
          .map((l) =>
            l.replace(/,,$/, l.startsWith("barbara.liskov|sales,") ? ",revoke,moved to marketing" : ",keep,"),
          ),
      ];
      writeFileSync(join(dir, "sales.csv"), `${filled.join("\r\n")}\r\n`);
      const wrong = await cli(
        [
          "campaign",
          "decide",
          "--campaign",
          "c.json",
          "--decisions",
          "d.json",
          "--reviewer",
          FINANCE,
          "sales.csv",
        ],
        4,
      );
      expect(wrong.stderr).toMatch(/not-assigned/);
      await cli(["campaign", "decide", "--campaign", "c.json", "--decisions", "d.json", "finance.json"]);
      const merged = await cli([
        "campaign",
        "decide",
        "--campaign",
        "c.json",
        "--decisions",
        "d.json",
        "--reviewer",
        SALES,
        "sales.csv",
      ]);
      expect(merged.stdout).toContain(
        `coverage: ${campaign.rows.length} of ${campaign.rows.length} row(s) decided (100%)`,
      );

      const rem = await cli([
        "campaign",
        "remediate",
        "--campaign",
        "c.json",
        "--decisions",
        "d.json",
        "--out",
        "r.json",
        "--source-patch",
        "users.patch",
      ]);
      expect(rem.stdout).toMatch(/in the service \(plan r.json\): 1 step/);
      const plan = JSON.parse(readFileSync(join(dir, "r.json"), "utf8")) as { steps: Array<{ id: string }> };
      expect(plan.steps.map((s) => s.id)).toEqual(["updateMapping:leaver"]);
      const patch = readFileSync(join(dir, "users.patch"), "utf8");
      expect(patch.split("\n").filter((l) => /^[-+] /.test(l))).toEqual([
        "-    groups: [sales]",
        "+    groups: []",
        "-    groups: [finance]",
        "+    groups: []",
      ]);
      await cli(["apply", "--plan", "r.json", "--yes", "--journal", "j.jsonl"]);
      execFileSync("patch", ["-p1", "-i", "users.patch"], { cwd: dir, stdio: "ignore" });
      await cli(["apply", "--yes", "--journal", "j.jsonl", "--credentials-file", "creds.csv"]);
      await cli(["review", "--format", "json", "--out", "after.json"]);

      const { privateKey, publicKey } = generateKeyPairSync("ed25519");
      writeFileSync(join(dir, "key.pem"), privateKey.export({ type: "pkcs8", format: "pem" }));
      const closeArgs = [
        "campaign",
        "close",
        "--campaign",
        "c.json",
        "--decisions",
        "d.json",
        "--remedies",
        "r.remedies.json",
        "--journal",
        "j.jsonl",
        "--after",
        "after.json",
        "--signing-key",
        "key.pem",
        "--signed-by",
        "ciso@demo.example",
      ];
      await cli([...closeArgs, "--out", "close.json", "--detailed-exitcode"]);
      const close = JSON.parse(readFileSync(join(dir, "close.json"), "utf8")) as {
        summary: Record<string, number>;
        revocations: Array<{ rowId: string; status: string; carriedOut?: string; reviewer: string }>;
        signOff: { closedBy: string; digest: string; signature: string; inputs: Array<{ role: string }> };
      };
      expect(close.summary).toMatchObject({
        revocations: 3,
        done: 3,
        pending: 0,
        decided: campaign.rows.length,
      });
      expect(close.revocations.map((r) => [r.rowId, r.status, r.reviewer, typeof r.carriedOut])).toEqual([
        ["barbara.liskov|sales", "done", SALES, "string"],
        ["dennis.ritchie|finance", "done", FINANCE, "string"],
        ["leaver|finance", "done", FINANCE, "string"],
      ]);
      expect(close.signOff.inputs.map((i) => i.role)).toEqual([
        "review",
        "campaign",
        "decisions",
        "remedies",
        "journal",
        "reviewAfter",
      ]);
      const [h, , s] = close.signOff.signature.split(".");
      const payload = Buffer.from(close.signOff.digest).toString("base64url");
      expect((await compactVerify(`${h}.${payload}.${s}`, publicKey)).protectedHeader.alg).toBe("EdDSA");
      const schema = JSON.parse(readFileSync(join(ROOT, "docs/campaign.schema.json"), "utf8")) as object;
      const ajv = new Ajv({ allErrors: true, strict: false });
      (addFormats as unknown as (a: Ajv) => void)(ajv);
      const validate = ajv.compile(schema);
      expect(validate(close), JSON.stringify(validate.errors)).toBe(true);
      const html = await cli([...closeArgs, "--format", "html"]);
      expect(html.stdout).toContain("3: 3 verified gone, 0 pending");
    });
  });
});
