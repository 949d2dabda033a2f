/**
 * The runtime usersync ships on and is tested on (docs/dependencies.md): the image's Node 24 base,
 * pinned by digest, is the Node CI installs for its second pass (scripts/ci-node24.sh);
 * package.json `engines` admits no version a production dependency refuses; the README says
 * both; and the CI summary counts each pass.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../e2e/run-cli.js";

const read = (path: string): Promise<string> => readFile(join(ROOT, path), "utf8");

/** The lowest version a semver range of `engines` admits, as [major, minor, patch]. */
function lowestAdmitted(range: string): number[] {
  const lows = range.split("||").map((alternative) => {
    // ">= 10.x" is ">=10.x"; the first comparator of "A B" is its lower bound.
    const first =
      alternative
        .trim()
        .replace(/([<>=^~])\s+/g, "$1")
        .split(/\s+/)[0] ?? "";
    const parts = first.replace(/^[>=^~v\s]+/, "").split(".");
    return [0, 1, 2].map((i) => Number.parseInt(parts[i] ?? "0", 10) || 0);
  });
  return lows.reduce((a, b) => (compare(a, b) <= 0 ? a : b));
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

const show = (v: number[]): string => v.join(".");

async function ciNode24Version(): Promise<string> {
  const script = await read("scripts/ci-node24.sh");
  const version = /^NODE24_VERSION=(\d+\.\d+\.\d+)$/m.exec(script)?.[1];
  expect(version, "scripts/ci-node24.sh sets NODE24_VERSION").toBeDefined();
  return version!;
}

describe("the image's runtime", () => {
  it("is node:24-bookworm-slim pinned by digest in every stage, with where the digest came from", async () => {
    const dockerfile = await read("Dockerfile");
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim@sha256:[0-9a-f]{64}$/m);
    const froms = dockerfile.match(/^FROM .*$/gm) ?? [];
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(/^FROM \$\{NODE_IMAGE\}( AS \w+)?$/);
    // The comment names the public record of the digest, at a commit, so it can be checked.
    expect(dockerfile).toMatch(/docker-library\/repo-info\b[\s\S]*\bcommit[\s#]*[0-9a-f]{40}\b/);
  });

  it("is the Node version CI's second pass installs and tests on", async () => {
    const version = await ciNode24Version();
    expect(version.split(".")[0]).toBe("24");
    const dockerfile = await read("Dockerfile");
    expect(dockerfile).toMatch(
      new RegExp(`^# Node ${version.replaceAll(".", "\\.")} on Debian bookworm`, "m"),
    );
    expect(await read(".ci/run")).toMatch(/^bash scripts\/ci-node24\.sh "\$results"/m);
  });
});

describe("engines", () => {
  it("admits no Node a production dependency refuses, and the Node running these tests", async () => {
    const pkg = JSON.parse(await read("package.json")) as { engines: { node: string } };
    const ours = lowestAdmitted(pkg.engines.node);
    const lock = JSON.parse(await read("package-lock.json")) as {
      packages: Record<string, { dev?: boolean; engines?: { node?: string } | string[] }>;
    };
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === "" || entry.dev === true) continue;
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (range === undefined) continue;
      const theirs = lowestAdmitted(range);
      if (compare(theirs, ours) > 0) refusing.push(`${path} needs ${range} (from ${show(theirs)})`);
    }
    expect(refusing, `engines ${pkg.engines.node} is lower than what these need`).toEqual([]);
    const running = process.versions.node.split(".").map(Number);
    expect(
      compare(ours, running),
      `engines ${pkg.engines.node} refuses this Node ${process.version}`,
    ).toBeLessThanOrEqual(0);
  });

  it("is what the README says is supported, beside the image's Node 24", async () => {
    const pkg = JSON.parse(await read("package.json")) as { engines: { node: string } };
    const readme = await read("README.md");
    expect(readme).toContain(`Node.js ${show(lowestAdmitted(pkg.engines.node))}`);
    expect(readme).toContain(`Node.js ${await ciNode24Version()}`);
  });

  it("reads the ranges dependencies write", () => {
    expect(show(lowestAdmitted(">=20.18.1"))).toBe("20.18.1");
    expect(show(lowestAdmitted(">= 10.x"))).toBe("10.0.0");
    expect(show(lowestAdmitted("^20.19.0 || ^22.13.0 || >=24"))).toBe("20.19.0");
    expect(show(lowestAdmitted("^12.20.0 || ^14.13.1 || >=16.0.0"))).toBe("12.20.0");
    expect(show(lowestAdmitted(">=22"))).toBe("22.0.0");
  });
});

describe("the CI summary", () => {
  /** A vitest JSON report: `failed` tests fail in one file's describe block, `unloaded` files do not load. */
  const report = (passed: number, failed: number, pending: number, unloaded = 0): string => {
    const test = (status: string) => ({ status });
    const files = [
      {
        status: failed > 0 ? "failed" : "passed",
        assertionResults: [
          ...Array.from({ length: passed }, () => test("passed")),
          ...Array.from({ length: failed }, () => test("failed")),
          ...Array.from({ length: pending }, () => test("pending")),
        ],
      },
      ...Array.from({ length: unloaded }, () => ({ status: "failed", assertionResults: [] })),
    ];
    return JSON.stringify({
      numPassedTests: passed,
      numFailedTests: failed,
      // The file and the describe block of the failed tests, and each file that did not load.
      numFailedTestSuites: (failed > 0 ? 2 : 0) + unloaded,
      numPendingTests: pending,
      testResults: files,
    });
  };

  it("prints each run's counts, skipped ones included, then the total line CI reads", async () => {
    const dir = await mkdtemp(join(tmpdir(), "usersync-ci-summary-"));
    const summary = (...files: string[]) =>
      spawnSync(process.execPath, [join(ROOT, "scripts/ci-summary.mjs"), ...files.map((f) => join(dir, f))], {
        encoding: "utf8",
      });
    try {
      await writeFile(join(dir, "unit.json"), report(10, 0, 2));
      await writeFile(join(dir, "e2e-node24.json"), report(4, 0, 0));
      const ok = summary("unit.json", "e2e-node24.json");
      expect(ok.stdout.trim().split("\n")).toEqual([
        "unit: 10 passed, 0 failed, 2 skipped",
        "e2e-node24: 4 passed, 0 failed",
        "14 passed, 0 failed",
      ]);
      expect(ok.status).toBe(0);

      // One failed test is one failure, not three (with its describe block and file); a file
      // that did not load is one more.
      await writeFile(join(dir, "e2e-node24.json"), report(3, 1, 0, 1));
      const failed = summary("unit.json", "e2e-node24.json");
      expect(failed.stdout.trim().split("\n").slice(-2)).toEqual([
        "e2e-node24: 3 passed, 2 failed",
        "13 passed, 2 failed",
      ]);
      expect(failed.status).toBe(1);

      const missing = summary("unit.json", "reliability.json");
      expect(missing.stderr).toContain("ci-summary: cannot read");
      expect(missing.status).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
