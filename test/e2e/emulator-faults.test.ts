/**
 * `usersync emulator --faults FILE`, the built CLI as a child process on port 0: a rate-limited
 * emulator answers a burst with 429s in the configured header convention, `usersync apply`
 * converges against the flaky sample file, and bad files exit 4 with their problems and never
 * listen. No timing is asserted.
 */
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { logMessages, ROOT, runCli, startCli, withTempDir, type CliResult } from "./run-cli.js";

const TOKEN = "faults-token-5d2a";
const FIXTURES = join(ROOT, "fixtures", "emulator");
const DEMO = join(ROOT, "fixtures", "demo");

interface Running {
  url: string;
  /** The line that says which faults are active. */
  faults: string;
  stop(): Promise<CliResult>;
}

/** Starts `usersync emulator --port 0 …` and waits for its URL and its faults line. */
async function emulatorCli(args: string[]): Promise<Running> {
  const { child, done } = startCli(["emulator", "--port", "0", "--token", TOKEN, ...args]);
  let out = "";
  let err = "";
  const started = new Promise<Omit<Running, "stop">>((resolve, reject) => {
    const check = (): void => {
      const url = /^http:\S+$/m.exec(out)?.[0];
      const faults = /^faults: .*$/m.exec(logMessages(err.slice(0, err.lastIndexOf("\n") + 1)))?.[0];
      if (url && faults) resolve({ url, faults });
    };
    child.stdout!.on("data", (d: Buffer) => void ((out += d.toString()), check()));
    child.stderr!.on("data", (d: Buffer) => void ((err += d.toString()), check()));
    void done.then((r) => reject(new Error(`the emulator exited (${r.code}): ${r.stderr}`)));
  });
  const running = await started;
  return {
    ...running,
    stop: () => {
      child.kill("SIGTERM");
      return done;
    },
  };
}

const auth = { authorization: `Bearer ${TOKEN}` };

describe("usersync emulator --faults: a rate limit", () => {
  // A window of an hour, so a short burst never spans two windows (epoch windows align to the clock).
  it.each([
    ["epoch-seconds", "X-RateLimit-Reset"],
    ["ietf", "RateLimit"],
  ])("answers a burst past the limit with 429s and %s headers", async (mode, header) => {
    await withTempDir(async (dir) => {
      const file = join(dir, "limited.yaml");
      await writeFile(file, `rateLimit:\n  limit: 3\n  windowSeconds: 3600\n  resetHeader: ${mode}\n`);
      const emu = await emulatorCli(["--faults", file]);
      try {
        expect(emu.faults).toMatch(/^faults: rate limit 3 per 3600 s window \(/);
        const answers = [];
        for (let i = 0; i < 6; i++) {
          const res = await fetch(`${emu.url}/api/v1/auth/users`, { headers: auth });
          await res.arrayBuffer();
          answers.push(res);
        }
        expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429, 429, 429]);
        for (const res of answers.slice(3)) {
          const retryAfter = Number(res.headers.get("retry-after"));
          expect(retryAfter).toBeGreaterThanOrEqual(1);
          expect(retryAfter).toBeLessThanOrEqual(3600);
          expect(res.headers.get(header)).not.toBeNull();
        }
        const last = answers[5]!.headers;
        if (mode === "epoch-seconds") {
          const reset = Number(last.get("x-ratelimit-reset"));
          expect(reset % 3600).toBe(0); // the end of a clock-aligned window, in epoch seconds
          expect(reset).toBeGreaterThan(Date.now() / 1000);
          expect(last.get("x-ratelimit-limit")).toBe("3");
          expect(last.get("x-ratelimit-remaining")).toBe("0");
        } else {
          expect(last.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
          expect(last.get("ratelimit-policy")).toBe('"default";q=3;w=3600');
          expect(last.get("x-ratelimit-reset")).toBeNull();
        }
      } finally {
        expect((await emu.stop()).code).toBe(0);
      }
    });
  });

  it("starts with the sample file and says so", async () => {
    const emu = await emulatorCli(["--faults", join(FIXTURES, "rate-limited.yaml")]);
    try {
      expect(emu.faults).toBe("faults: rate limit 20 per 1 s window (X-RateLimit-Reset as epoch seconds)");
      const res = await fetch(`${emu.url}/api/v1/auth/users`, { headers: auth });
      expect(res.headers.get("x-ratelimit-limit")).toBe("20");
    } finally {
      expect((await emu.stop()).code).toBe(0);
    }
  });
});

describe("docs/emulator.md", () => {
  it("each --faults example starts and prints the faults line the doc shows", async () => {
    const doc = await readFile(join(ROOT, "docs", "emulator.md"), "utf8");
    const examples = [
      ...doc.matchAll(/^npx usersync (emulator .*--faults .*)\n(?:#(?! faults:).*\n)*# (faults: .*)$/gm),
    ];
    expect(examples.length).toBe(3);
    for (const [, command, expected] of examples) {
      // Port 0 instead of 8080, the repo's fixtures wherever the test runs.
      const args = command!
        .split(/\s+/)
        .slice(1)
        .map((a) => (a === "8080" ? "0" : a.startsWith("fixtures/") ? join(ROOT, a) : a));
      const emu = await emulatorCli(args);
      try {
        expect(emu.faults).toBe(expected);
      } finally {
        expect((await emu.stop()).code).toBe(0);
      }
    }
  });
});

describe("usersync emulator --faults: a flaky service", () => {
  it("usersync apply still converges: every step succeeds after retries, a new plan has no changes", async () => {
    const emu = await emulatorCli([
      "--seed",
      join(DEMO, "organization.yaml"),
      "--faults",
      join(FIXTURES, "flaky.yaml"),
    ]);
    try {
      expect(emu.faults).toMatch(
        /^faults: 1% dropped connections, 7\.5% 500, 2\.5% 503, 5% 429 \(Retry-After 1 s\), /,
      );
      await withTempDir(async (dir) => {
        const env = { USERSYNC_TOKEN: TOKEN };
        const common = ["--desired", join(DEMO, "users.yaml"), "--base-url", emu.url, "--log-level", "error"];
        const credentials = join(dir, "credentials.csv");
        const apply = await runCli(["apply", ...common, "--yes", "--credentials-file", credentials], { env });
        expect(apply.stderr).toBe("");
        expect(apply.code).toBe(0);
        expect(apply.stdout).toContain("Apply finished: 56 succeeded (of 56 steps)");
        expect(apply.stdout).toContain("Done: 39 people (21 added, 17 changed, 1 revoked)");
        // The faults were there, and were retried past.
        const retried = Number(/Requests: \d+ sent, (\d+) retried/.exec(apply.stdout)?.[1]);
        expect(retried).toBeGreaterThan(0);
        const plan = await runCli(["plan", ...common, "--detailed-exitcode"], { env });
        expect(plan.code).toBe(0);
        expect(plan.stdout).toContain("No changes.");
      });
    } finally {
      expect((await emu.stop()).code).toBe(0);
    }
  });
});

/** A port nothing listens on, to show a refused file never gets as far as listening. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("usersync emulator --faults: a bad file", () => {
  const refused = async (name: string, text: string): Promise<CliResult & { file: string }> =>
    withTempDir(async (dir) => {
      const file = join(dir, name);
      await writeFile(file, text);
      const port = String(await freePort());
      const r = await runCli(["emulator", "--port", port, "--faults", file]);
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toBe("");
      expect(logMessages(r.stderr)).not.toContain("listening");
      expect(logMessages(r.stderr)).toContain(`invalid faults file ${file}`);
      return { ...r, file };
    });

  it("names every problem with its key, line and what is allowed", async () => {
    const r = await refused(
      "bad.yaml",
      [
        "eror500: 0.1",
        'error503: "often"',
        "throttle429: 1.5",
        "pathPattern: '^/api/(v1'",
        "rateLimit:",
        "  limit: 10",
        "  windowSecond: 1",
        "  resetHeader: epoch",
        "",
      ].join("\n"),
    );
    expect(logMessages(r.stderr)).toContain("(7 problems)");
    const at = (line: number) => `${r.file}:${line}: `;
    expect(logMessages(r.stderr)).toContain(
      `${at(1)}eror500: unknown key; did you mean error500? the keys are latencyMs,`,
    );
    expect(logMessages(r.stderr)).toContain(`${at(2)}error503: must be a share of requests between 0 and 1`);
    expect(logMessages(r.stderr)).toContain(
      `${at(3)}throttle429: must be a share of requests between 0 and 1`,
    );
    expect(logMessages(r.stderr)).toMatch(
      new RegExp(`${at(4)}pathPattern: is not a valid regular expression \\(.+\\)`),
    );
    expect(logMessages(r.stderr)).toContain(`${at(5)}rateLimit.windowSeconds: is required`);
    expect(logMessages(r.stderr)).toContain(
      `${at(7)}rateLimit.windowSecond: unknown key; did you mean windowSeconds? rateLimit takes limit, windowSeconds, resetHeader`,
    );
    expect(logMessages(r.stderr)).toContain(
      `${at(8)}rateLimit.resetHeader: must be one of delta, epoch-seconds, epoch-ms, ietf`,
    );
  });

  it("names a broken-answer rule's problems by its place in the list", async () => {
    const r = await refused(
      "broken.yaml",
      [
        "brokenAnswers:",
        "  - mode: html",
        "    pathPatern: ^/api/v1/profile$",
        "  - mode: gateway",
        "    share: 2",
        "    methods: [FETCH]",
        "",
      ].join("\n"),
    );
    expect(r.stderr).toContain("(4 problems)");
    const at = `${r.file}:1: `;
    expect(r.stderr).toContain(
      `${at}brokenAnswers.0.pathPatern: unknown key; did you mean pathPattern? brokenAnswers.0 takes mode, pathPattern, methods, share, intervalMs, bytes`,
    );
    expect(r.stderr).toContain(
      `${at}brokenAnswers.1.mode: must be one of html, dataNull, truncated, oversize, repeatPage, emptyPage, trickle`,
    );
    expect(r.stderr).toContain(`${at}brokenAnswers.1.share: must be a share of requests between 0 and 1`);
    expect(r.stderr).toContain(
      `${at}brokenAnswers.1.methods.0: must be one of GET, POST, PUT, PATCH, DELETE`,
    );
  });

  it("refuses shares that add up past 1, since one draw decides between them", async () => {
    const r = await refused("over.yaml", "error500: 0.5\nerror503: 0.3\nthrottle429: 0.3\n");
    expect(logMessages(r.stderr)).toContain(
      `${r.file}:3: throttle429: error500 + error503 + throttle429 add up to 1.1: one draw decides`,
    );
  });

  it("reads JSON the same way, with lines", async () => {
    const r = await refused("bad.json", '{\n  "seed": 1.5,\n  "latencyMs": -1\n}\n');
    expect(logMessages(r.stderr)).toContain(`${r.file}:2: seed: must be a whole number`);
    expect(logMessages(r.stderr)).toContain(
      `${r.file}:3: latencyMs: must be a number of milliseconds, 0 or more`,
    );
  });

  it("refuses a file that is not a mapping, and a missing file", async () => {
    const list = await refused("list.yaml", "- error500: 0.1\n");
    expect(logMessages(list.stderr)).toContain("a faults file is a mapping of fault settings: latencyMs,");
    const missing = await runCli(["emulator", "--port", "0", "--faults", join(FIXTURES, "missing.yaml")]);
    expect(missing.code).toBe(4);
    expect(missing.stdout).toBe("");
    expect(logMessages(missing.stderr)).toContain(
      "cannot read the faults file (ENOENT): check the --faults path",
    );
  });
});
