/**
 * scripts/check-audit.mjs, CI's `npm audit --omit=dev`: run as CI runs it, with a stand-in `npm`
 * first on the PATH that answers `npm audit --json` as the registry would (a report, or the
 * endpoint's refusal), since the real endpoint cannot be asked from every machine.
 */
import { spawnSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../e2e/run-cli.js";

const ADVISORY = "GHSA-2c3f-4g5h-6j7m";

const REPORT = {
  auditReportVersion: 2,
  vulnerabilities: {
    undici: {
      name: "undici",
      severity: "moderate",
      via: [
        {
          source: 1,
          url: `https://github.com/advisories/${ADVISORY}`,
          title: "A header is kept",
          severity: "moderate",
          range: "<7.31.0",
        },
      ],
    },
    // Vulnerable only through undici: no advisory of its own.
    "some-wrapper": { name: "some-wrapper", severity: "moderate", via: ["undici"] },
  },
  metadata: { vulnerabilities: { moderate: 2, total: 2 } },
};

const REFUSED = {
  message: "405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk",
  statusCode: 405,
  error: { summary: "", detail: "" },
};

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-check-audit-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the script with an `npm` that prints `answer` and exits 1, as npm audit does. */
async function checkAudit(answer: object, docs: string): Promise<{ status: number | null; stdout: string }> {
  await writeFile(join(dir, "answer.json"), JSON.stringify(answer));
  await writeFile(join(dir, "npm"), `#!/bin/sh\ncat "${join(dir, "answer.json")}"\nexit 1\n`);
  await chmod(join(dir, "npm"), 0o755);
  await writeFile(join(dir, "dependencies.md"), docs);
  const result = spawnSync(
    process.execPath,
    [join(ROOT, "scripts/check-audit.mjs"), join(dir, "dependencies.md")],
    {
      encoding: "utf8",
      env: { ...process.env, PATH: `${dir}:${process.env["PATH"] ?? ""}` },
    },
  );
  return { status: result.status, stdout: result.stdout };
}

describe("check-audit", () => {
  it("fails on an advisory the docs do not explain, naming it once", async () => {
    const { status, stdout } = await checkAudit(
      REPORT,
      `# Deps\n\n## Advisories\n\nNone.\n\n## Other\n\n${ADVISORY}\n`,
    );
    expect(status).toBe(1);
    expect(stdout).toContain(
      `check-audit: ${ADVISORY} (moderate) in undici <7.31.0: A header is kept; NOT explained`,
    );
    expect(stdout).toContain("check-audit: 1 advisories against production dependencies, 1 not explained");
  });

  it("passes when the section Advisories explains it by its id", async () => {
    const docs = `# Deps\n\n## Advisories\n\n- ${ADVISORY}: usersync never sends that header.\n`;
    const { status, stdout } = await checkAudit(REPORT, docs);
    expect(status).toBe(0);
    expect(stdout).toContain(
      `${ADVISORY} (moderate) in undici <7.31.0: A header is kept; explained in docs/dependencies.md`,
    );
  });

  it("says nothing was checked, without failing, when the endpoint refuses", async () => {
    const { status, stdout } = await checkAudit(REFUSED, "# Deps\n");
    expect(status).toBe(0);
    expect(stdout.trim()).toBe(
      "check-audit: not checked: the registry's audit endpoint could not be asked (405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk)",
    );
  });

  it("passes a clean report", async () => {
    const { status, stdout } = await checkAudit({ auditReportVersion: 2, vulnerabilities: {} }, "# Deps\n");
    expect(status).toBe(0);
    expect(stdout.trim()).toBe("check-audit: 0 advisories against production dependencies, 0 not explained");
  });
});
