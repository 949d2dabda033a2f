/**
 * A campaign of 100,000 people in the CronJob's memory (docs/benchmarks.md figure 16) without a
 * byte of its files changing: the snapshot and the campaign file are read a line at a time, hashed
 * from the same read; the campaign is written in pieces that join to JSON.stringify's text; the
 * snapshot's rows let go as the campaign's are made leave the same campaign.
 */
import { createHash } from "node:crypto";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { campaignJsonChunks } from "../../src/cli/campaign/open.js";
import { decisionsFromCsvFile, readCampaignFile, readSnapshot } from "../../src/cli/campaign/files.js";
import { readJsonLines } from "../../src/cli/snapshot-lines.js";
import { openCampaign } from "../../src/review/campaign/open.js";
import { prettyJsonChunks } from "../../src/report/pretty-json.js";
import { renderSnapshotJson } from "../../src/report/review/index.js";
import { toSnapshot } from "../../src/review/to-snapshot.js";
import { aReview } from "../report/review-fixture.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-campaign-streaming-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = (text: string): string => `sha256:${createHash("sha256").update(text).digest("hex")}`;
const rules = {
  workspaces: { "*": ["ws@x.example"] },
  groups: {},
  organizations: {},
  default: ["it@x.example"],
};

function opened(release: boolean) {
  const snapshot = toSnapshot(aReview({ withChanges: true }));
  return openCampaign({
    snapshot,
    file: "s.json",
    sha256: "sha256:x",
    openedAt: "2027-01-01T00:00:00.000Z",
    rules,
    release,
  });
}

describe("a campaign of many people", () => {
  it("is written in pieces that join to JSON.stringify(value, null, 2)", () => {
    const values: unknown[] = [
      { a: [], b: {}, c: undefined, d: [1, undefined, "x\n</script>\u2028"], e: { f: [{ g: null }] } },
      [],
      {},
      [[[]], [{}], "s", 0],
      "text",
      null,
    ];
    for (const v of values)
      for (const depth of [0, 1, 2, 3, 5])
        expect([...prettyJsonChunks(v, depth)].join("")).toBe(JSON.stringify(v, null, 2));
    const campaign = opened(false);
    expect([...campaignJsonChunks(campaign)].join("")).toBe(`${JSON.stringify(campaign, null, 2)}\n`);
  });

  it("opened with the snapshot's rows let go, is the campaign opened from a snapshot kept whole", () => {
    expect(opened(true)).toStrictEqual(opened(false));
  });

  it("and its snapshot are read a line at a time, to JSON.parse's value and the sha256 of the bytes", async () => {
    const campaignText = [...campaignJsonChunks(opened(false))].join("");
    const snapshotText = renderSnapshotJson(toSnapshot(aReview({ withChanges: true })));
    const campaignPath = join(dir, "campaign.json");
    const snapshotPath = join(dir, "review.json");
    await writeFile(campaignPath, campaignText);
    await writeFile(snapshotPath, snapshotText);
    for (const [path, text] of [
      [campaignPath, campaignText],
      [snapshotPath, snapshotText],
    ] as const) {
      const file = await open(path);
      const hash = createHash("sha256");
      try {
        expect(await readJsonLines(file, { onBytes: (b) => hash.update(b) })).toStrictEqual(JSON.parse(text));
      } finally {
        await file.close();
      }
      expect(`sha256:${hash.digest("hex")}`).toBe(sha256(text));
    }
    const campaign = await readCampaignFile(campaignPath);
    expect(campaign.value).toStrictEqual(JSON.parse(campaignText));
    expect(campaign.sha256).toBe(sha256(campaignText));
    const snapshot = await readSnapshot(snapshotPath);
    expect(snapshot.value).toStrictEqual(JSON.parse(snapshotText));
    expect(snapshot.sha256).toBe(sha256(snapshotText));
  });

  it("read whole when laid out otherwise (one line), to the same value and hash", async () => {
    const value = opened(false);
    const text = JSON.stringify(value);
    const path = join(dir, "one-line.json");
    await writeFile(path, text);
    const read = await readCampaignFile(path);
    expect(read.value).toStrictEqual(JSON.parse(text));
    expect(read.sha256).toBe(sha256(text));
  });

  it("decisions in a reviewers' CSV are read a record at a time: each filled row, each bad one named by line", async () => {
    // docs/audits.md "Deciding": decision is keep, revoke, or change followed by the permissions kept.
    const path = join(dir, "decisions.csv");
    await writeFile(
      path,
      "\ufeffrow_id,reviewers,decision,comment\r\n" +
        "a|ws,x,keep,\r\n" +
        "b|ws,x,,\r\n" +
        'c|ws,x,"change view, export",fewer\r\n' +
        "d|ws,x,maybe,\r\n",
    );
    const who = { reviewer: "r@x.example", decidedAt: "2027-01-02T00:00:00.000Z" };
    const { input, problems } = await decisionsFromCsvFile(path, who);
    expect(input.decisions).toStrictEqual([
      { rowId: "a|ws", decision: "keep", ...who, from: "decisions.csv", line: 2, field: "decision" },
      {
        rowId: "c|ws",
        decision: "change",
        permissions: ["VIEW", "EXPORT"],
        comment: "fewer",
        ...who,
        from: "decisions.csv",
        line: 4,
        field: "decision",
      },
    ]);
    expect(problems).toMatchObject([{ file: path, line: 5, field: "decision", rule: "bad-decision" }]);
    const noColumns = join(dir, "no-columns.csv");
    await writeFile(noColumns, "id,what\na,keep\n");
    expect((await decisionsFromCsvFile(noColumns, who)).problems).toMatchObject([
      { line: 1, rule: "columns" },
    ]);
  });
});
