/**
 * deploy/ci: the GitHub Actions workflow and the GitLab CI file for changes by pull or merge
 * request. Their shell steps run here in order, as the runner would run them, in a folder that
 * is the repository of the desired state, with the built CLI against the emulator: a change is
 * validated and planned on its branch (nothing sent but reads; the Markdown plan in the job
 * summary and the comment, the JSON plan saved), and on merge exactly that saved plan is applied;
 * a step gone stale (someone changed by hand the object it updates: a person's login or user) is
 * refused with exit 3 and reported, while a hand-made change to an object no step of the plan
 * touches makes nothing stale (DESIGN.md §6: per step, per object). Steps that are actions (`uses:`) or installs are the runner's: the
 * artifact stays in the folder between the jobs; `gh` and `curl` are stand-ins that answer as
 * GitHub and GitLab would and record what they were asked. Both files are also validated against
 * their published JSON schemas, vendored in test/fixtures/schemas/ (its README says whence).
 */
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { spawn } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { CLI, ROOT } from "../e2e/run-cli.js";

const TOKEN = "ci-pipeline-token-9d2";
const CI = join(ROOT, "deploy", "ci");
/** The published JSON schemas of both files, vendored (test/fixtures/schemas/README.md says whence). */
const SCHEMAS = join(ROOT, "test", "fixtures", "schemas");
// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface Step {
  run?: string;
  uses?: string;
}
interface Workflow {
  env: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}
interface GitlabJob {
  script: string[];
}

let emulator: EmulatorHandle;
let root: string;
beforeAll(async () => {
  // A workspace nobody reads yet: the access review's campaign (below) gives a group access to it.
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: { workspaces: [{ id: "sales", name: "Sales" }] },
  });
  root = await mkdtemp(join(tmpdir(), "usersync-ci-"));
});
afterAll(async () => {
  await emulator?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** The desired state; Jane's lastname is set only when given (her mapping's, in profile v1). */
const users = (jane: string, lastname?: string) => ({
  version: 1,
  groups: [{ id: "analytics", name: "Analytics" }],
  users: [
    {
      email: "jane.doe@example.com",
      displayName: jane,
      ...(lastname === undefined ? {} : { lastname }),
      groups: ["analytics"],
    },
    { email: "john.roe@example.com", displayName: "John Roe", groups: ["analytics"] },
  ],
});

/** The repository of the desired state: its config, users.yaml, the script, and stand-ins for gh and curl. */
async function repository(name: string): Promise<{ dir: string; bin: string; calls: string }> {
  const dir = join(root, name);
  await mkdir(join(dir, "deploy", "ci"), { recursive: true });
  await cp(join(CI, "usersync-ci.sh"), join(dir, "deploy", "ci", "usersync-ci.sh"));
  await writeFile(
    join(dir, "usersync.yaml"),
    stringify({
      target: { baseUrl: emulator.url },
      source: { desired: "users.yaml" },
      identity: { passwords: "none" },
      policy: { mode: "full", maxDeletes: 5 },
    }),
  );
  await writeFile(join(dir, "users.yaml"), stringify(users("Jane Doe")));
  const bin = join(dir, ".bin");
  const calls = join(dir, ".calls");
  await mkdir(bin);
  // gh: the merge commit's pull request and its plan run; a comment is recorded.
  await writeFile(
    join(bin, "gh"),
    `#!/bin/sh
echo "gh $*" >> "${calls}"
case "$1 $2" in
  "api repos/"*) echo 0123456789abcdef0123456789abcdef01234567 ;;
  "run list") echo 4242 ;;
  # No comment of this workflow yet: --edit-last fails, as gh's does, and a new one is posted.
  "pr comment") [ "$4" = "--edit-last" ] && exit 1; exit 0 ;;
esac
`,
  );
  // curl: the GitLab API for the merge commit's merge request, its pipeline, its plan job, and
  // the job's artifacts (a zip of the plan folder as the plan job left it).
  await writeFile(
    join(bin, "curl"),
    `#!/bin/sh
echo "curl $*" >> "${calls}"
out=""; prev=""; url=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; url="$a"; done
case "$url" in
  */merge_requests/7/notes) ;;
  */repository/commits/*/merge_requests) echo '[{"iid":7}]' ;;
  */merge_requests/7) echo '{"head_pipeline":{"id":9}}' ;;
  */pipelines/9/jobs*) echo '[{"name":"usersync-plan","id":11}]' ;;
  */jobs/11/artifacts) case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
    (cd "${dir}/.artifacts" && python3 -m zipfile -c "$out" usersync-plan) ;;
  *) echo "unexpected $url" >&2; exit 22 ;;
esac
`,
  );
  await chmod(join(bin, "gh"), 0o755);
  await chmod(join(bin, "curl"), 0o755);
  return { dir, bin, calls };
}

/**
 * Runs shell steps in order as the runner does (bash, stop at the first failure); the exit code
 * of the one that failed. Asynchronous: the emulator answers from this process.
 */
async function runSteps(
  scripts: string[],
  repo: { dir: string; bin: string },
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  let output = "";
  for (const script of scripts) {
    const child = spawn("bash", ["-eo", "pipefail", "-c", script], {
      cwd: repo.dir,
      env: {
        PATH: `${repo.bin}:${process.env["PATH"] ?? ""}`,
        HOME: repo.dir,
        SYNC_CLI: `${process.execPath} ${CLI}`,
        USERSYNC_TOKEN: TOKEN,
        NO_COLOR: "1",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number>((done) => child.on("close", (c) => done(c ?? -1)));
    if (code !== 0) return { code, output };
  }
  return { code: 0, output };
}

const runnerSteps = (steps: Step[]): string[] =>
  steps.flatMap((s) => (s.run !== undefined && s.run !== "npm ci" ? [s.run] : []));

async function renameJane(dir: string, to: string, lastname?: string): Promise<void> {
  await writeFile(join(dir, "users.yaml"), stringify(users(to, lastname)));
}

/** Jane's user in the organization (its id is derived from her email). */
const jane = () => emulator.state().mappings.find((m) => m.id.startsWith("jane"));
/** Jane's credentials (her login, with the display name) in the built-in identity provider. */
const janeLogin = () => emulator.state().idpUsers.find((u) => u.email === "jane.doe@example.com");

/**
 * Someone changes Jane in the organization by hand, after the plan: her user's lastname (the
 * object of a mapping step), or her login's display name (the object of a credentials step). A
 * step is stale when its own object changed (DESIGN.md §6), so which one matters.
 */
async function changeJaneByHand(what: "lastname" | "displayName", to: string): Promise<void> {
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  const res =
    what === "lastname"
      ? await fetch(`${emulator.url}/api/v1/entities/users/${jane()!.id}`, {
          method: "PATCH",
          headers: { ...headers, "content-type": "application/vnd.gooddata.api+json" },
          body: JSON.stringify({
            data: { id: jane()!.id, type: "user", attributes: { lastname: to } },
          }),
        })
      : await fetch(`${emulator.url}/api/v1/auth/users/jane.doe@example.com`, {
          method: "PUT",
          headers,
          body: JSON.stringify({ email: "jane.doe@example.com", displayName: to }),
        });
  expect(res.status).toBe(200);
}

const compiled = new Map<string, { ajv: Ajv; validate: ValidateFunction; id: string }>();
/** A vendored schema, compiled once (the two are 110 kB each). */
async function compiledSchema(schema: string): Promise<{ ajv: Ajv; validate: ValidateFunction; id: string }> {
  const done = compiled.get(schema);
  if (done) return done;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const published = JSON.parse(await readFile(join(SCHEMAS, `${schema}.json`), "utf8")) as { $id: string };
  const made = { ajv, validate: ajv.compile(published), id: published.$id };
  compiled.set(schema, made);
  return made;
}

/**
 * The schema's complaints about a CI file's text, one line each ("" when it is valid). Draft-07
 * (ajv's default); `strict: false` for the editor keywords the schemas carry (`markdownDescription`).
 * GitLab's schema lets a hidden key (`.usersync`) be anything, a YAML anchor; one that a job
 * `extends` is a job template, so it is checked against that schema's own `job_template` too.
 */
async function schemaProblems(schema: "github-workflow" | "gitlab-ci", text: string): Promise<string> {
  const { ajv, validate, id } = await compiledSchema(schema);
  const doc = parse(text) as Record<string, unknown>;
  const problems: string[] = [];
  const report = (v: ValidateFunction, at: string) =>
    problems.push(
      ...(v.errors ?? []).map(
        (e) => `${at}${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`,
      ),
    );
  if (!validate(doc)) report(validate, "");
  if (schema === "gitlab-ci") {
    const template = ajv.getSchema(`${id}#/definitions/job_template`)!;
    const extended = new Set(
      Object.values(doc).flatMap((job) => {
        const ext = (job as { extends?: string | string[] } | null)?.extends;
        return ext === undefined ? [] : [ext].flat();
      }),
    );
    for (const key of Object.keys(doc).filter((k) => k.startsWith(".") && extended.has(k)))
      if (!template(doc[key])) report(template, `/${key}`);
  }
  return problems.join("\n");
}

/** The file's text with one key misspelt (the replacement must happen: the test says so if not). */
function misspelt(text: string, key: string, wrong: string): string {
  const broken = text.replace(new RegExp(`^(\\s*)${key}:`, "m"), `$1${wrong}:`);
  expect(broken, `no "${key}:" to misspell`).not.toBe(text);
  return broken;
}

describe("the files against their published JSON schemas (SchemaStore's github-workflow, GitLab's ci.json)", () => {
  it("the GitHub Actions workflow is valid; a misspelt key is not", async () => {
    const text = await readFile(join(CI, "github-actions.yml"), "utf8");
    expect(await schemaProblems("github-workflow", text)).toBe("");
    expect(await schemaProblems("github-workflow", misspelt(text, "runs-on", "runs_on"))).toContain(
      '"additionalProperty":"runs_on"',
    );
    expect(await schemaProblems("github-workflow", misspelt(text, "concurrency", "concurency"))).toContain(
      '"additionalProperty":"concurency"',
    );
    // A step's key (the first `run:` of its own line: the plan job's "Validate and plan").
    expect(await schemaProblems("github-workflow", misspelt(text, "run", "rnu"))).toMatch(
      /\/jobs\/plan\/steps\/3 .*"rnu"/,
    );
  });

  it("the GitLab CI file is valid; a misspelt key is not", async () => {
    const text = await readFile(join(CI, "gitlab-ci.yml"), "utf8");
    expect(await schemaProblems("gitlab-ci", text)).toBe("");
    expect(await schemaProblems("gitlab-ci", misspelt(text, "expire_in", "expires_in"))).toContain(
      '"additionalProperty":"expires_in"',
    );
    // In the hidden job template both jobs extend.
    expect(await schemaProblems("gitlab-ci", misspelt(text, "resource_group", "resource_groups"))).toMatch(
      /^\/\.usersync\/ .*"additionalProperty":"resource_groups"/m,
    );
    expect(await schemaProblems("gitlab-ci", misspelt(text, "script", "scripts"))).toContain(
      '"additionalProperty":"scripts"',
    );
  });
});

describe("the GitHub Actions workflow", () => {
  let workflow: Workflow;
  let repo: Awaited<ReturnType<typeof repository>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    workflow = parse(await readFile(join(CI, "github-actions.yml"), "utf8")) as Workflow;
    repo = await repository("github");
    env = {
      // As the runner has them: an expression over a variable that is not set is empty.
      ...Object.fromEntries(Object.entries(workflow.env).map(([k, v]) => [k, v.includes("${{") ? "" : v])),
      GITHUB_STEP_SUMMARY: join(repo.dir, ".summary.md"),
      GITHUB_OUTPUT: join(repo.dir, ".output"),
      GITHUB_REPOSITORY: "acme/iam",
      GITHUB_SHA: "fedcba9876543210fedcba9876543210fedcba98",
      GH_TOKEN: "gh-token",
      PR: "17",
    };
  });

  it("plans a pull request (summary, comment, saved plan; nothing written), applies that plan on merge", async () => {
    const writes = emulator.requestLog().filter((r) => r.method !== "GET").length;
    const plan = await runSteps(runnerSteps(workflow.jobs["plan"]!.steps), repo, env);
    expect(plan.code, plan.output).toBe(0);
    expect(emulator.requestLog().filter((r) => r.method !== "GET").length).toBe(writes);
    const summary = await readFile(env["GITHUB_STEP_SUMMARY"]!, "utf8");
    expect(summary).toMatch(/^#/m);
    expect(summary).toContain("jane.doe@example.com");
    const calls = await readFile(repo.calls, "utf8");
    expect(calls).toContain("gh pr comment 17 --body-file usersync-plan/plan.md");
    const saved = JSON.parse(await readFile(join(repo.dir, "usersync-plan", "plan.json"), "utf8")) as object;
    expect(saved).toBeTypeOf("object");
    expect(JSON.stringify(saved)).not.toContain(TOKEN);

    const apply = await runSteps(runnerSteps(workflow.jobs["apply"]!.steps), repo, env);
    expect(apply.code, apply.output).toBe(0);
    expect(await readFile(env["GITHUB_OUTPUT"]!, "utf8")).toContain("run-id=4242");
    expect(jane()).toBeDefined();
    expect(emulator.state().mappings.some((m) => m.id.startsWith("john"))).toBe(true);
    expect(await readFile(join(repo.dir, "usersync-plan", "apply.md"), "utf8")).toMatch(/^#/m);
  }, 120_000);

  it("refuses the steps of a plan gone stale on merge (exit 3), and reports them", async () => {
    await renameJane(repo.dir, "Jane Smith");
    const plan = await runSteps(runnerSteps(workflow.jobs["plan"]!.steps), repo, env);
    expect(plan.code, plan.output).toBe(0);
    // The plan changes Jane's display name, on her login; someone changes that by hand.
    await changeJaneByHand("displayName", "Changed By Hand");
    const steps = runnerSteps(workflow.jobs["apply"]!.steps);
    const apply = await runSteps(steps.slice(0, -1), repo, env);
    expect(apply.code, apply.output).toBe(3);
    expect(apply.output).toContain("Apply finished: 1 stale (of 1 step)");
    // The report step runs whatever the apply's outcome (if: always()).
    expect(workflow.jobs["apply"]!.steps.at(-1)).toMatchObject({ if: "always()" });
    expect((await runSteps(steps.slice(-1), repo, env)).code).toBe(0);
    const summary = await readFile(env["GITHUB_STEP_SUMMARY"]!, "utf8");
    expect(summary.slice(summary.lastIndexOf("## usersync plan"))).toMatch(
      /update login jane\.doe@example\.com: stale: .*re-run plan/,
    );
    // The stale step was not carried out: the hand-made change stands.
    expect(janeLogin()?.displayName).toBe("Changed By Hand");
  }, 120_000);

  it("applies a plan whose own objects did not change, whatever else was changed by hand (exit 0)", async () => {
    // The plan changes only Jane's display name (her login); her user's lastname is no object of
    // it, so a hand-made change there makes nothing stale, and the apply leaves it as it is.
    await renameJane(repo.dir, "Jane Taylor");
    const plan = await runSteps(runnerSteps(workflow.jobs["plan"]!.steps), repo, env);
    expect(plan.code, plan.output).toBe(0);
    const saved = await readFile(join(repo.dir, "usersync-plan", "plan.json"), "utf8");
    const kinds = (JSON.parse(saved) as { steps: Array<{ kind: string }> }).steps.map((s) => s.kind);
    expect(kinds).toEqual(["updateCredentials"]);
    await changeJaneByHand("lastname", "Changed-By-Hand");
    const apply = await runSteps(runnerSteps(workflow.jobs["apply"]!.steps), repo, env);
    expect(apply.code, apply.output).toBe(0);
    expect(janeLogin()?.displayName).toBe("Jane Taylor");
    expect(jane()?.lastname).toBe("Changed-By-Hand");
  }, 120_000);

  it("checks the open campaign's decisions on a pull request and plans their remediation in the summary", async () => {
    // The analytics group reads a workspace; a campaign opened from the review lives in campaign/.
    const grant = await fetch(`${emulator.url}/api/v1/actions/workspaces/sales/managePermissions`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify([
        { assigneeIdentifier: { id: "analytics", type: "userGroup" }, permissions: ["VIEW"] },
      ]),
    });
    expect(grant.status, await grant.text()).toBeLessThan(300);
    const config = parse(await readFile(join(repo.dir, "usersync.yaml"), "utf8")) as Record<string, unknown>;
    await writeFile(
      join(repo.dir, "usersync.yaml"),
      stringify({ ...config, review: { reviewers: { default: "it@example.com" } } }),
    );
    const cli = (...args: string[]) => runSteps([`$SYNC_CLI ${args.join(" ")}`], repo, env);
    await mkdir(join(repo.dir, "campaign", "decisions"), { recursive: true });
    expect((await cli("review", "--format", "json", "--out", "q.json")).code).toBe(0);
    const opened = await cli(
      "campaign",
      "open",
      "--review",
      "q.json",
      "--campaign",
      "campaign/campaign.json",
    );
    expect(opened.code, opened.output).toBe(0);
    const campaign = JSON.parse(await readFile(join(repo.dir, "campaign", "campaign.json"), "utf8")) as {
      id: string;
      snapshot: { digest: string };
      rows: Array<{ rowId: string }>;
    };
    const page = (rowIds: string[]) => ({
      formatVersion: 1,
      kind: "usersync-campaign-decisions",
      campaign: campaign.id,
      digest: campaign.snapshot.digest,
      decisions: rowIds.map((rowId) => ({
        rowId,
        decision: rowId.startsWith("jane") ? "revoke" : "keep",
        reviewer: "it@example.com",
        decidedAt: "2029-12-01T10:00:00.000Z",
      })),
    });
    const decisions = join(repo.dir, "campaign", "decisions", "it.json");
    await writeFile(decisions, JSON.stringify(page(campaign.rows.map((r) => r.rowId))));
    const writes = emulator.requestLog().filter((r) => r.method !== "GET").length;
    const plan = await runSteps(runnerSteps(workflow.jobs["plan"]!.steps), repo, env);
    expect(plan.code, plan.output).toBe(0);
    expect(emulator.requestLog().filter((r) => r.method !== "GET").length).toBe(writes);
    const summary = await readFile(env["GITHUB_STEP_SUMMARY"]!, "utf8");
    expect(summary).toContain("## Access review decisions (campaign/campaign.json)");
    expect(summary).toContain(
      `coverage: ${campaign.rows.length} of ${campaign.rows.length} row(s) decided (100%)`,
    );
    // Jane is in analytics by the file: the change is the file's, a patch for the pull request.
    expect(summary).toMatch(/at the source: 1 change\(s\) \(patch usersync-plan\/campaign\/source.patch\)/);
    // A row nobody has: the pull request fails (exit 4) and says which.
    await writeFile(decisions, JSON.stringify(page(["nobody|sales"])));
    const bad = await runSteps(runnerSteps(workflow.jobs["plan"]!.steps), repo, env);
    expect(bad.code, bad.output).toBe(4);
    expect(bad.output).toContain("nobody|sales");
    await rm(join(repo.dir, "campaign"), { recursive: true });
  }, 120_000);
});

describe("the GitLab CI file", () => {
  let jobs: Record<string, GitlabJob> & { variables: Record<string, string> };
  let repo: Awaited<ReturnType<typeof repository>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    jobs = parse(await readFile(join(CI, "gitlab-ci.yml"), "utf8")) as typeof jobs;
    repo = await repository("gitlab");
    env = {
      ...jobs.variables,
      CI_API_V4_URL: "https://gitlab.example.com/api/v4",
      CI_PROJECT_ID: "42",
      CI_MERGE_REQUEST_IID: "7",
      CI_COMMIT_SHA: "fedcba9876543210fedcba9876543210fedcba98",
      GITLAB_API_TOKEN: "glpat-test",
    };
  });

  /** The plan job's artifact, as GitLab keeps it; the apply job starts from a clean checkout. */
  async function keepArtifact(): Promise<void> {
    await rm(join(repo.dir, ".artifacts"), { recursive: true, force: true });
    await mkdir(join(repo.dir, ".artifacts"));
    await cp(join(repo.dir, "usersync-plan"), join(repo.dir, ".artifacts", "usersync-plan"), {
      recursive: true,
    });
    await rm(join(repo.dir, "usersync-plan"), { recursive: true, force: true });
  }

  it("plans a merge request (log, note, artifact), applies that plan on merge", async () => {
    await renameJane(repo.dir, "Jane Brown");
    const plan = await runSteps(jobs["usersync-plan"]!.script, repo, env);
    expect(plan.code, plan.output).toBe(0);
    expect(plan.output).toContain("jane.doe@example.com");
    expect(await readFile(repo.calls, "utf8")).toMatch(
      /curl .*body@usersync-plan\/plan\.md .*merge_requests\/7\/notes/,
    );
    await keepArtifact();
    const apply = await runSteps(jobs["usersync-apply"]!.script, repo, env);
    expect(apply.code, apply.output).toBe(0);
    expect(apply.output).toContain("Done: 1 person (1 changed)");
  }, 180_000);

  it("refuses a stale plan on merge (exit 3): the stale step not carried out, the rest applied", async () => {
    // The plan changes Jane's display name (her login) and her lastname (her user); someone
    // changes her lastname by hand in between: that step is stale, the other one goes on.
    await renameJane(repo.dir, "Jane Green", "Green");
    expect((await runSteps(jobs["usersync-plan"]!.script, repo, env)).code).toBe(0);
    await keepArtifact();
    // (A value she has not had yet: the same value again would be no change at all.)
    await changeJaneByHand("lastname", "Changed-Again");
    const stale = await runSteps(jobs["usersync-apply"]!.script, repo, env);
    expect(stale.code, stale.output).toBe(3);
    // The report (the job's artifact) names the stale step and what to do.
    const report = await readFile(join(repo.dir, "usersync-plan", "apply.md"), "utf8");
    expect(report).toContain("1 succeeded, 1 stale (of 2 steps)");
    expect(report).toMatch(/update user jane\.doe_example\.com: stale: .*re-run plan/);
    expect(jane()?.lastname).toBe("Changed-Again");
    expect(janeLogin()?.displayName).toBe("Jane Green");
  }, 180_000);

  it("says what to do when the merged change has no saved plan (exit 4)", async () => {
    await rm(join(repo.dir, "usersync-plan"), { recursive: true, force: true });
    const r = await runSteps(["bash deploy/ci/usersync-ci.sh apply"], repo, env);
    expect(r.code).toBe(4);
    expect(r.output).toContain("no saved plan at usersync-plan/plan.json");
  });
});

describe("an estate of organizations (targets:) through the same files", () => {
  const BETA_TOKEN = "ci-pipeline-token-beta-4e7";
  let beta: EmulatorHandle;
  let repo: Awaited<ReturnType<typeof repository>>;
  let env: Record<string, string>;
  let steps: { plan: string[]; apply: string[] };
  const writes = (e: EmulatorHandle) => e.requestLog().filter((r) => r.method !== "GET").length;
  beforeAll(async () => {
    beta = await startEmulator({ port: 0, tokens: { [BETA_TOKEN]: "admin" } });
    repo = await repository("estate");
    // Two organizations (alpha: the shared emulator, beta: its own), each with its own token.
    await writeFile(
      join(repo.dir, "usersync.yaml"),
      stringify({
        source: { desired: "users.yaml" },
        identity: { passwords: "none" },
        policy: { mode: "full", maxDeletes: 5 },
        targets: [
          { name: "beta", baseUrl: beta.url, select: { groups: ["analytics"] } },
          { name: "alpha", baseUrl: emulator.url, select: { groups: ["analytics"] } },
        ],
      }),
    );
    await writeFile(join(repo.dir, "users.yaml"), stringify(users("Jane Estate")));
    // usersync as the CI runs it, noting the directory token it was given (Entra's variable).
    await writeFile(
      join(repo.bin, "usersync-noting"),
      `#!/bin/sh\n[ -n "$AZURE_FEDERATED_TOKEN_FILE" ] && cat "$AZURE_FEDERATED_TOKEN_FILE" > "${repo.dir}/.oidc-seen"\nexec "${process.execPath}" "${CLI}" "$@"\n`,
    );
    await chmod(join(repo.bin, "usersync-noting"), 0o755);
    const workflow = parse(await readFile(join(CI, "github-actions.yml"), "utf8")) as Workflow;
    steps = {
      plan: runnerSteps(workflow.jobs["plan"]!.steps),
      apply: runnerSteps(workflow.jobs["apply"]!.steps),
    };
    env = {
      ...Object.fromEntries(Object.entries(workflow.env).map(([k, v]) => [k, v.includes("${{") ? "" : v])),
      GITHUB_STEP_SUMMARY: join(repo.dir, ".summary.md"),
      GITHUB_OUTPUT: join(repo.dir, ".output"),
      GITHUB_REPOSITORY: "acme/iam",
      GITHUB_SHA: "fedcba9876543210fedcba9876543210fedcba98",
      GH_TOKEN: "gh-token",
      PR: "18",
      SYNC_CLI: join(repo.bin, "usersync-noting"),
      USERSYNC_TOKEN: "",
      USERSYNC_TOKEN_ALPHA: TOKEN,
      USERSYNC_TOKEN_BETA: BETA_TOKEN,
      // The workflow's own OIDC token, as GitHub hands it to a job with id-token: write.
      DIRECTORY_OIDC_AUDIENCE: "api://AzureADTokenExchange",
      DIRECTORY_OIDC_TOKEN_FILE: join(repo.dir, ".oidc-token"),
      ACTIONS_ID_TOKEN_REQUEST_URL: "https://token.actions.example/oidc?api-version=2.0",
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: "runner-request-token",
    };
    // The runner's OIDC endpoint, answered by the curl stand-in.
    const curl = await readFile(join(repo.bin, "curl"), "utf8");
    await writeFile(
      join(repo.bin, "curl"),
      curl.replace(
        'case "$url" in\n',
        'case "$url" in\n  *audience=api://AzureADTokenExchange) echo \'{"value":"oidc-jwt-from-github"}\' ;;\n',
      ),
    );
  });
  afterAll(() => beta?.close());

  it("plans every organization (a section each, a saved plan each) with the workflow's own identity; applies each saved plan on merge", async () => {
    const before = [writes(emulator), writes(beta)];
    const plan = await runSteps(steps.plan, repo, env);
    expect(plan.code, plan.output).toBe(0);
    expect([writes(emulator), writes(beta)]).toEqual(before);
    const summary = await readFile(env["GITHUB_STEP_SUMMARY"]!, "utf8");
    expect(summary.match(/^# Organization \S+/gm)).toEqual(["# Organization alpha", "# Organization beta"]);
    for (const name of ["alpha", "beta"])
      expect(await readFile(join(repo.dir, "usersync-plan", `plan.${name}.json`), "utf8")).toContain(
        "jane.doe",
      );
    // The directory token: the OIDC token the job asked its provider for, never a stored secret.
    expect(await readFile(join(repo.dir, ".oidc-seen"), "utf8")).toBe("oidc-jwt-from-github");
    expect(await readFile(repo.calls, "utf8")).toContain("audience=api://AzureADTokenExchange");

    const apply = await runSteps(steps.apply, repo, env);
    expect(apply.code, apply.output).toBe(0);
    expect(apply.output).toMatch(/alpha: exit 0[\s\S]*beta: exit 0/);
    expect(beta.state().idpUsers.find((u) => u.email === "jane.doe@example.com")?.displayName).toBe(
      "Jane Estate",
    );
    expect(janeLogin()?.displayName).toBe("Jane Estate");
  }, 180_000);

  it("with SYNC_APPLIER=cronjob plans, and on merge applies nothing: the CronJob is the one applier", async () => {
    await renameJane(repo.dir, "Jane Cronjob");
    const withCronJob = { ...env, SYNC_APPLIER: "cronjob" };
    expect((await runSteps(steps.plan, repo, withCronJob)).code).toBe(0);
    const before = [writes(emulator), writes(beta)];
    const apply = await runSteps(steps.apply, repo, withCronJob);
    expect(apply.code, apply.output).toBe(0);
    expect(apply.output).toContain("the CronJob applies the merged desired state at its next run");
    expect([writes(emulator), writes(beta)]).toEqual(before);
    expect(janeLogin()?.displayName).toBe("Jane Estate");
  }, 180_000);

  it("GitLab: the job's id_tokens token is the directory's token", async () => {
    const jobs = parse(await readFile(join(CI, "gitlab-ci.yml"), "utf8")) as Record<
      string,
      { id_tokens?: object }
    >;
    expect(jobs[".usersync"]!.id_tokens).toEqual({
      DIRECTORY_ID_TOKEN: { aud: "api://AzureADTokenExchange" },
    });
    await rm(join(repo.dir, ".oidc-seen"), { force: true });
    const plan = await runSteps(["bash deploy/ci/usersync-ci.sh plan"], repo, {
      ...env,
      ACTIONS_ID_TOKEN_REQUEST_URL: "",
      DIRECTORY_ID_TOKEN: "oidc-jwt-from-gitlab",
    });
    expect(plan.code, plan.output).toBe(0);
    expect(await readFile(join(repo.dir, ".oidc-seen"), "utf8")).toBe("oidc-jwt-from-gitlab");
  }, 180_000);
});
