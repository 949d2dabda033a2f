/**
 * Issue 21's "a week in production": the shipped configs, rendered by `kubectl kustomize` from
 * deploy/kubernetes (test/helpers/kustomize.ts; each workload's pod in its own folders, one folder
 * for the usersync-state volume all of them mount), run by the built CLI against one emulator, a
 * fake Kubernetes API (the onboarding job's password Secrets) and a Pushgateway stand-in, through
 * a scripted week: the first hourly sync, an onboarding batch, the syncs before and after it is
 * merged into users.yaml, a mover caught by the audit, a leaver pending for the grace period and
 * revoked past it, an outage of the desired file, a larger batch stopped at its deadline (once by
 * the SIGTERM alone, once by SIGTERM then SIGKILL against a slow service) and run again, a reorg
 * under sustained 429s, and a quiet Sunday.
 *
 * After every run (`runPod`): the exit code docs/kubernetes.md and the README promise; nobody
 * who ever had a login lost it, but a leaver past the grace period; every intended person usable
 * (a login, a user pointing at it, their groups), but at most `execution.concurrency` people a
 * stopped run left half-done, until its job's next run; every created password in its Secret and
 * the service's; the run's metrics pushed with its exit code; its report on the volume when it
 * carried anything out (a run with nothing to apply writes none, docs/kubernetes.md step 6, and a
 * killed run cannot), the audit's drift report as its JSON log line.
 */
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { ApplyReport } from "../../src/apply/report.js";
import { loadConfig } from "../../src/config/index.js";
import { deriveUserId } from "../../src/desired/ids.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorSeed } from "../../src/emulator/types.js";
import { startCli, type CliResult } from "./run-cli.js";
import { startFakeKubeApi } from "../helpers/fake-kube-api.js";
import { startFakePushgateway } from "../helpers/fake-pushgateway.js";
import { ageStateFile, readStateFile } from "../helpers/state-file.js";
import {
  find,
  jobSpecOf,
  podRun,
  render,
  type K8sObject,
  type Overlay,
  type PodRun,
} from "../helpers/kustomize.js";
import { skipWithout } from "../helpers/skips.js";

const TOKEN = "week-token";
/**
 * The cut-off run: once the service slows down, every answer takes SLOW_MS, and the kubelet's
 * SIGKILL follows its SIGTERM after GRACE_MS (terminationGracePeriodSeconds, scaled down). A
 * person's create sent after the slowdown is still unanswered when the SIGKILL comes, whatever
 * the load, as long as the test's own event loop is not held up for SLOW_MS - GRACE_MS.
 */
const SLOW_MS = 2000;
const GRACE_MS = 300;
/** The requests that change a user's groups: the user's update, the bulk membership actions. */
const WRITES =
  /^\/api\/v1\/(entities\/users\/[^/]+|actions\/userManagement\/userGroups\/[^/]+\/(add|remove)Members)$/;
const GROUPS = ["analytics", "finance", "sales"];

interface Person {
  email: string;
  displayName: string;
  groups: string[];
}
const staff = (prefix: string, count: number): Person[] =>
  Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(2, "0");
    return { email: `${prefix}${n}@example.com`, displayName: `${prefix} ${n}`, groups: [GROUPS[i % 3]!] };
  });

type Workload = "sync" | "audit" | "onboarding";
const WORKLOADS = {
  sync: { overlay: "hourly-sync", cronJob: "usersync", command: "apply" },
  audit: { overlay: "daily-audit", cronJob: "usersync-audit", command: "plan" },
  onboarding: { overlay: "onboarding", cronJob: "usersync-onboarding", command: "apply" },
} as const;

interface Pod {
  workload: K8sObject;
  run: PodRun;
  env: Record<string, string>;
  /** Where the shipped config writes its report and journal (apply only), in the test's folders. */
  report?: string;
  journal?: string;
  state?: string;
  concurrency: number;
  /** output.credentialsSecretPrefix */
  secretPrefix?: string;
}

let dir: string;
let emulator: EmulatorHandle;
let kube: Awaited<ReturnType<typeof startFakeKubeApi>>;
let gateway: Awaited<ReturnType<typeof startFakePushgateway>>;
const pods = {} as Record<Workload, Pod>;

/** users.yaml as the sync's and the audit's ConfigMap holds it. */
let users: { version: 1; groups: { id: string; name: string }[]; users: Person[] };
/** Who must be usable after the next run, by email. */
const intended = new Map<string, Person>();
/**
 * The people an interrupted run left half-done (at most `execution.concurrency`) or never
 * started, excused until its workload's next run that is not interrupted.
 */
let excused: { workload: Workload; emails: Set<string> } | undefined;
/** Leavers whose grace period has passed: they may lose their login. */
const leaversDue = new Set<string>();
/** Everyone seen with a login after some run. */
const hadLogin = new Set<string>();
/** In the organization before the week: no password of theirs was generated. */
const seeded = new Set<string>();

async function publish(): Promise<void> {
  // `kubectl apply -k overlays/hourly-sync` updates the ConfigMap both pods mount.
  for (const w of ["sync", "audit"] as const)
    await writeFile(pods[w].run.at("/etc/usersync/users.yaml"), stringify(users));
}

/** From the next run on, these people must be usable as they are now (copies: users.yaml changes on). */
const intend = (people: Person[]): void => people.forEach((p) => intended.set(p.email, structuredClone(p)));

/** What keeps a person from signing in with the groups they should have; empty when usable. */
function unusable(p: Person): string[] {
  const s = emulator.state();
  const login = s.idpUsers.find((u) => u.email === p.email);
  const user = s.mappings.find((m) => m.id === deriveUserId(p.email));
  if (!login) return [`${p.email}: no login`];
  if (!user) return [`${p.email}: no user`];
  if (user.authenticationId !== login.authenticationId)
    return [`${p.email}: the user points at another login`];
  if ([...user.groups].sort().join() !== [...p.groups].sort().join())
    return [`${p.email}: groups ${user.groups.join()} instead of ${p.groups.join()}`];
  return [];
}

/** The checks after every run that are about people: revoked, usable, passwords delivered. */
function checkPeople(): void {
  const s = emulator.state();
  const logins = new Set(s.idpUsers.map((u) => u.email));
  const lost = [...hadLogin].filter((e) => !logins.has(e) && !leaversDue.has(e));
  expect(lost, "lost their login").toEqual([]);
  logins.forEach((e) => hadLogin.add(e));
  const problems = [...intended.values()].filter((p) => !excused?.emails.has(p.email)).flatMap(unusable);
  expect(problems, "intended people not usable").toEqual([]);
  const secrets = kube.passwords();
  const undelivered = s.idpUsers
    .filter((u) => !seeded.has(u.email))
    .filter((u) => u.password === undefined || secrets.get(u.email) !== u.password)
    .map((u) => u.email);
  expect(undelivered, "created logins whose password is not in their Secret").toEqual([]);
  // Where the onboarding config says: one Secret per person, named by its prefix, in the pod's namespace.
  for (const secret of kube.secrets.values())
    expect(secret.metadata).toMatchObject({
      namespace: "usersync",
      name: expect.stringMatching(new RegExp(`^${pods.onboarding.secretPrefix}-[0-9a-f]{16}$`)),
    });
}

/**
 * The sustained 429s end once every write they met has been answered 429 twice: every request of
 * the run waits out each Retry-After together (the client pauses them all), so that is a spell
 * of two waits, and no request has used up its retries (5). Returns the 429s by request.
 */
async function liftOnceEachThrottledTwice(run: Promise<unknown>): Promise<Map<string, number>> {
  let over = false;
  const end = (): boolean => (over = true);
  void run.then(end, end);
  for (;;) {
    const counts = new Map<string, number>();
    for (const e of emulator.requestLog())
      if (e.status === 429) counts.set(`${e.method} ${e.url}`, (counts.get(`${e.method} ${e.url}`) ?? 0) + 1);
    if (over || (counts.size > 0 && Math.min(...counts.values()) >= 2)) {
      emulator.setFaults({});
      return counts;
    }
    await sleep(5);
  }
}

/** Every file on the volume, by name, with its content. */
async function volumeFiles(): Promise<Record<string, string>> {
  const folder = join(dir, "volume");
  const out: Record<string, string> = {};
  for (const name of await readdir(folder)) out[name] = await readFile(join(folder, name), "utf8");
  return out;
}

/** What the shipped Job does with a pod that exited with `code` (its podFailurePolicy). */
function podFailureAction(pod: Pod, code: number): string | undefined {
  const rules = jobSpecOf(pod.workload)["podFailurePolicy"]["rules"] as K8sObject[];
  return rules.find((r) => (r["onExitCodes"]?.["values"] as number[] | undefined)?.includes(code))?.[
    "action"
  ];
}

const readMaybe = (file: string | undefined): Promise<string | undefined> =>
  file === undefined ? Promise.resolve(undefined) : readFile(file, "utf8").catch(() => undefined);

/** Whether a run has made a start on a person: a login or a user of theirs exists. */
function started(p: Person): boolean {
  const s = emulator.state();
  return (
    s.idpUsers.some((u) => u.email === p.email) || s.mappings.some((m) => m.id === deriveUserId(p.email))
  );
}

/** Polls `ok` until it holds; fails if the run ended first. */
async function until(what: string, ok: () => boolean, run: Promise<unknown>): Promise<void> {
  let ended = false;
  const end = (): boolean => (ended = true);
  void run.then(end, end);
  while (!ok()) {
    expect(ended, `the run ended before ${what}`).toBe(false);
    await sleep(2);
  }
}

interface Expected {
  /** The exit code, or "SIGKILL" for a run killed before it could end (no report, no metrics). */
  code: number | "SIGKILL";
  /** A new report on the volume; else the last one stays as it was. */
  report: boolean;
}

/**
 * Runs a workload's pod (`stop`, if given, signals it as the kubelet would), then checks what
 * every run must leave: the exit code, the metrics push, the report, the people. After a stopped
 * run, whoever it left half-done (at most `execution.concurrency` people) or never started is
 * excused until the workload's next run that is not stopped.
 */
async function runPod(
  w: Workload,
  expected: Expected,
  stop?: (child: ChildProcess, run: Promise<CliResult>) => Promise<void>,
): Promise<CliResult> {
  const pod = pods[w];
  const reportBefore = await readMaybe(pod.report);
  const pushes = gateway.pushes.length;
  const { child, done } = startCli(pod.run.args, { env: pod.env });
  await stop?.(child, done);
  const r = await done;
  const context = `${w}: ${r.stdout.slice(-1500)}\n${r.stderr.slice(-1500)}`;
  if (expected.code === "SIGKILL") {
    expect(r.signal, `${context}\nnot ended by the SIGTERM within the grace`).toBe("SIGKILL");
    expect(gateway.pushes.length, "no metrics from a killed run").toBe(pushes);
  } else {
    expect(r.code, context).toBe(expected.code);
    expect(gateway.pushes.length, `${context}\none push per run`).toBe(pushes + 1);
    const push = gateway.pushes.at(-1)!;
    expect(push.path).toBe(`/metrics/job/${WORKLOADS[w].cronJob}/namespace/usersync`);
    expect(push.samples).toContainEqual({
      name: "usersync_last_exit_code",
      labels: { command: WORKLOADS[w].command, organization: new URL(emulator.url).host },
      value: expected.code,
    });
  }

  const reportAfter = await readMaybe(pod.report);
  if (expected.report) {
    expect(reportAfter, `${context}\na report for the run`).not.toBe(reportBefore);
    expect((JSON.parse(reportAfter!) as { exitCode: number }).exitCode).toBe(expected.code);
  } else if (pod.report !== undefined) {
    expect(reportAfter === reportBefore, `${context}\nno report written`).toBe(true);
  }
  if (w === "audit" && expected.code !== 5) {
    // --log-report: the drift as one JSON line, in the log that outlives the pod.
    const line = r.stderr.split("\n").find((l) => l.includes(`"report":"drift"`));
    expect(JSON.parse(line ?? "null"), context).toMatchObject({
      report: "drift",
      drift: expected.code === 2,
    });
  }

  if (stop) {
    const notUsable = [...intended.values()].filter((p) => unusable(p).length > 0);
    const halfDone = notUsable.filter(started);
    expect(halfDone.length, `half-done: ${halfDone.flatMap(unusable).join("; ")}`).toBeLessThanOrEqual(
      pod.concurrency,
    );
    excused = { workload: w, emails: new Set(notUsable.map((p) => p.email)) };
  } else if (excused?.workload === w) {
    excused = undefined;
  }
  checkPeople();
  return r;
}

/** `kubectl kustomize` of a shipped overlay, once per overlay (deploy/ does not change during the week): a deep copy each time. */
const rendered = new Map<Overlay, K8sObject[]>();
function renderShipped(overlay: Overlay): K8sObject[] {
  let objects = rendered.get(overlay);
  if (!objects) rendered.set(overlay, (objects = render(overlay)));
  return structuredClone(objects);
}

async function layOut(w: Workload): Promise<Pod> {
  const objects = renderShipped(WORKLOADS[w].overlay);
  const workload = find(objects, "CronJob", WORKLOADS[w].cronJob);
  const run = await podRun(objects, workload, {
    root: join(dir, w),
    token: TOKEN,
    claims: { "usersync-state": join(dir, "volume") },
  });
  // What differs from the pod: the addresses settings/ names, and the service account's folder.
  const env: Record<string, string> = {
    ...run.env,
    USERSYNC_TARGET_BASE_URL: emulator.url,
    USERSYNC_OUTPUT_METRICS_PUSH_URL: gateway.url,
  };
  if (w === "onboarding")
    Object.assign(env, kube.env(), {
      USERSYNC_OUTPUT_KUBERNETES_SERVICE_ACCOUNT_DIR: await kube.serviceAccountDir(),
    });
  const file = run.args[run.args.indexOf("--config") + 1]!;
  const config = await loadConfig({ file, env, cwd: dir });
  return {
    workload,
    run,
    env,
    concurrency: config.execution.concurrency,
    ...(config.output.credentialsSecretPrefix === undefined
      ? {}
      : { secretPrefix: config.output.credentialsSecretPrefix }),
    ...(w === "audit" ? {} : { report: config.output.report!, journal: config.output.journal! }),
    ...(config.state.file === undefined ? {} : { state: config.state.file }),
  };
}

function seedOf(people: Person[]): EmulatorSeed {
  return {
    groups: users.groups.map((g) => ({ id: g.id, name: g.name, parents: [] })),
    idpUsers: [
      { email: "admin@example.com", displayName: "Admin", authenticationId: "auth-admin" },
      ...people.map((p, i) => ({
        email: p.email,
        displayName: p.displayName,
        authenticationId: `auth-${i}`,
      })),
    ],
    mappings: [
      { id: "admin", authenticationId: "auth-admin", email: "admin@example.com", groups: [] },
      ...people.map((p, i) => ({
        id: deriveUserId(p.email),
        authenticationId: `auth-${i}`,
        email: p.email,
        groups: p.groups,
      })),
    ],
  };
}

describe.skipIf(skipWithout(["kubectl"], { what: "a week in production", onCi: "run" }))(
  "a week in production, as the shipped manifests run it",
  // About 20 s in all on a quiet machine; a step runs the built CLI once to three times.
  { timeout: 60_000 },
  () => {
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "usersync-week-"));
      [kube, gateway] = await Promise.all([
        startFakeKubeApi({ namespace: "usersync" }),
        startFakePushgateway(),
      ]);
      // The organization as it is before the week: the shipped sample's people and some staff.
      const shipped = parse(
        find(renderShipped("hourly-sync"), "ConfigMap", "usersync")["data"]["users.yaml"],
      );
      users = {
        version: 1,
        groups: [...shipped.groups, { id: "finance", name: "Finance" }, { id: "sales", name: "Sales" }],
        users: [...shipped.users, ...staff("staff", 18)],
      };
      emulator = await startEmulator({ port: 0, tokens: { [TOKEN]: "admin" }, seed: seedOf(users.users) });
      for (const w of ["sync", "audit", "onboarding"] as const) pods[w] = await layOut(w);
      await publish();
      intend(users.users);
      users.users.forEach((p) => seeded.add(p.email));
      seeded.add("admin@example.com");
    });
    afterAll(async () => {
      await Promise.all([emulator?.close(), kube?.close(), gateway?.close()]);
      await rm(dir, { recursive: true, force: true });
    });

    it("Monday 09:17: the first hourly sync finds the organization as users.yaml says", async () => {
      const r = await runPod("sync", { code: 0, report: false });
      expect(r.stdout).toContain("No changes");
    });

    const batch: Person[] = [];

    it("Monday 10:00: an onboarding batch creates its people, each password in a Secret; the state file has them", async () => {
      // The shipped sample batch and two more, as the operator writes onboarding.yaml.
      const file = pods.onboarding.run.at("/etc/usersync/onboarding.yaml");
      const sample = parse(await readFile(file, "utf8")) as { users: Person[] };
      batch.push(...sample.users, ...staff("hire", 2));
      await writeFile(file, stringify({ version: 1, users: batch }));
      intend(batch);
      // One truth: both configs keep the state file on the volume both jobs mount.
      expect(pods.onboarding.state).toBe(pods.sync.state);
      const r = await runPod("onboarding", { code: 0, report: true });
      expect(r.stdout).toContain("Done: 3 people (3 added)");
      const state = await readStateFile(pods.sync.state!);
      for (const p of batch)
        expect(state.people[`mapping:${deriveUserId(p.email)}`], p.email).toMatchObject({
          reason: "created",
        });
    });

    it("Monday 10:17: the sync's users.yaml does not have them yet: pending, not revoked", async () => {
      const r = await runPod("sync", { code: 0, report: false });
      expect(r.stdout).toContain("created by an incremental run at");
      expect(r.stdout).toContain("Nothing to apply.");
    });

    it("Monday 11:17: merged into users.yaml, the sync changes nothing and forgets them", async () => {
      users.users.push(...batch);
      await publish();
      const r = await runPod("sync", { code: 0, report: false });
      expect(r.stdout).toContain("No changes");
      expect((await readStateFile(pods.sync.state!)).people).toEqual({});
    });

    const mover = (): Person => users.users.find((p) => p.email === "staff03@example.com")!;

    it("Tuesday 06:00: a mover's new groups are drift for the audit (exit 2); the sync at 06:17 moves them", async () => {
      mover().groups = ["finance", "sales"];
      await publish();
      const audit = await runPod("audit", { code: 2, report: false });
      expect(audit.stdout).toContain("staff03");
      intend([mover()]);
      const r = await runPod("sync", { code: 0, report: true });
      expect(r.stdout).toContain("Done: 1 person (1 changed)");
    });

    const leaver = "staff05@example.com";

    it("Tuesday 09:17: a leaver gone from users.yaml is pending for policy.revokeAfter (72h): login kept", async () => {
      users.users = users.users.filter((p) => p.email !== leaver);
      intended.delete(leaver);
      await publish();
      const r = await runPod("sync", { code: 0, report: false });
      expect(r.stdout).toContain("1 person pending (policy.revokeAfter)");
      expect(emulator.state().idpUsers.some((u) => u.email === leaver)).toBe(true);
    });

    it("Wednesday: the desired file is gone (missing, then a folder in its place): exit 5, retried by the Job, nothing sent or written", async () => {
      // The shipped podFailurePolicy counts 5 against backoffLimit (a retry may pass), where 4 fails the Job.
      expect(podFailureAction(pods.sync, 5)).toBe("Count");
      expect(podFailureAction(pods.sync, 4)).toBe("FailJob");
      const file = pods.sync.run.at("/etc/usersync/users.yaml");
      for (const outage of ["missing", "a folder"]) {
        await rm(file, { force: true, recursive: true });
        if (outage === "a folder") await mkdir(file); // what the kubelet mounts for a missing subPath
        const volume = await volumeFiles();
        emulator.resetLog();
        const r = await runPod("sync", { code: 5, report: false });
        const fatal = JSON.parse(r.stderr.trim().split("\n").at(-1)!) as Record<string, unknown>;
        expect(fatal, outage).toMatchObject({ code: "SOURCE_UNAVAILABLE", exitCode: 5 });
        expect(String(fatal["msg"]), outage).toContain(file);
        expect(emulator.counters().requests, `${outage}: requests sent`).toBe(0);
        expect(await volumeFiles(), `${outage}: the volume is as it was`).toEqual(volume);
      }
      await rm(file, { force: true, recursive: true });
      await publish();
    });

    it("Friday (73 h later): the leaver's grace has passed: revoked within policy.maxDeletes, and nobody else", async () => {
      await ageStateFile(pods.sync.state!, 73);
      leaversDue.add(leaver);
      const r = await runPod("sync", { code: 0, report: true });
      expect(r.stdout).toContain("policy.revokeAfter 72h has passed");
      const s = emulator.state();
      expect(s.idpUsers.some((u) => u.email === leaver)).toBe(false);
      // deletions: revoke leaves no access: the login and the groups go; the user (and its history) stays.
      expect(s.mappings.find((m) => m.id === deriveUserId(leaver))?.groups).toEqual([]);
      const report = JSON.parse(await readFile(pods.sync.report!, "utf8")) as ApplyReport;
      expect(report.steps.map((step) => [step.kind, step.target, step.outcome]).sort()).toEqual([
        ["deleteCredentials", expect.stringContaining("staff05"), "succeeded"],
        ["updateMapping", deriveUserId(leaver), "succeeded"],
      ]);
    });

    const large = staff("joiner", 40);
    const whole = (): number => large.filter((p) => unusable(p).length === 0).length;

    it("Friday 14:00: a larger batch meets its deadline: the SIGTERM lets the running steps finish, exit 130, a report that says so", async () => {
      await writeFile(
        pods.onboarding.run.at("/etc/usersync/onboarding.yaml"),
        stringify({ version: 1, users: large }),
      );
      intend(large);
      // No podFailurePolicy rule names 130: like 1, a retry may pass (docs/kubernetes.md).
      expect(podFailureAction(pods.onboarding, 130)).toBeUndefined();
      const r = await runPod("onboarding", { code: 130, report: true }, async (child, run) => {
        await until("2 people were whole", () => whole() >= 2, run);
        child.kill("SIGTERM");
        // The kubelet's SIGKILL would follow after terminationGracePeriodSeconds (30 s).
        const ended = new AbortController();
        const deadline = sleep(10_000, undefined, { signal: ended.signal }).then(
          () => child.kill("SIGKILL"),
          () => undefined,
        );
        await run;
        ended.abort();
        await deadline;
      });
      expect(r.stderr).toContain("interrupted: finishing the running steps");
      const report = JSON.parse(await readFile(pods.onboarding.report!, "utf8")) as ApplyReport;
      expect(report.stoppedBy).toBe("interrupted");
      expect(report.summary.notStarted).toBeGreaterThan(0);
      expect(report.summary.people.added).toBe(whole());
    });

    it("Friday 15:00: the batch's next Job, the service slow: cut off by SIGTERM, then SIGKILL after the grace; its journal is true", async () => {
      const pod = pods.onboarding;
      const journalBefore = (await readMaybe(pod.journal)) ?? "";
      const wholeBefore = whole();
      await runPod("onboarding", { code: "SIGKILL", report: false }, async (child, run) => {
        await until("2 more people were whole", () => whole() >= wholeBefore + 2, run);
        // The service slows down: the run cannot finish by its deadline.
        emulator.setFaults({ latencyMs: SLOW_MS });
        const posts = (): number => kube.requests.filter((q) => q.method === "POST").length;
        const before = posts();
        // A person's credentials step is under way (its Secret first): its create will wait SLOW_MS.
        await until("a person's Secret was written after the slowdown", () => posts() > before, run);
        child.kill("SIGTERM");
        await sleep(GRACE_MS);
        child.kill("SIGKILL");
        await run;
        // The requests the killed run sent are carried out all the same, as a real service would.
        emulator.setFaults({});
        await sleep(SLOW_MS + 250);
      });
      // The steps its journal on the volume says it finished are true. (How many: the lines of
      // the last steps may go with the process, and a person made whole here may have needed one
      // step only, after the SIGTERM-stopped run.)
      const lines = ((await readMaybe(pod.journal)) ?? "").slice(journalBefore.length).split("\n");
      const finished = lines
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { kind: string; target: string; outcome: string });
      expect(finished.length, "a trail on the volume").toBeGreaterThan(0);
      const s = emulator.state();
      for (const step of finished) {
        expect(step.outcome).toBe("succeeded");
        if (step.kind === "createCredentials")
          expect(
            s.idpUsers.some((u) => u.email === step.target),
            step.target,
          ).toBe(true);
        else if (step.kind === "createMapping")
          expect(
            s.mappings.some((m) => m.id === step.target),
            step.target,
          ).toBe(true);
        else expect.fail(`a step of kind ${step.kind} in an onboarding batch`);
      }
    });

    it("Friday 15:17: the hourly sync meanwhile: the batch is pending, the half-done people left alone", async () => {
      const r = await runPod("sync", { code: 0, report: false });
      expect(r.stdout).toContain("created by an incremental run at");
    });

    it("Friday 16:00: the batch's Job made once more converges: everyone whole, every password in its Secret", async () => {
      const r = await runPod("onboarding", { code: 0, report: true });
      expect(r.stdout).toContain("Done:");
      expect(excused).toBeUndefined();
    });

    it("Saturday: a reorg under sustained 429s, the batch merged: the sync waits, retries and converges", async () => {
      users.users.push(...large);
      for (const p of users.users.filter((u) => u.email.startsWith("staff1")))
        p.groups = ["analytics", "sales"];
      await publish();
      intend(users.users);
      emulator.resetLog();
      emulator.setFaults({ throttle429: 1, retryAfterSeconds: 1, pathPattern: WRITES });
      const run = runPod("sync", { code: 0, report: true });
      const throttled = await liftOnceEachThrottledTwice(run);
      const r = await run;
      expect(throttled.size, "writes answered 429").toBeGreaterThan(0);
      const report = JSON.parse(await readFile(pods.sync.report!, "utf8")) as ApplyReport;
      expect(report.summary.counts.succeeded).toBe(report.steps.length);
      expect(report.summary.retries).toBeGreaterThanOrEqual(2 * throttled.size);
      expect(gateway.pushes.at(-1)!.samples).toContainEqual(
        expect.objectContaining({ name: "usersync_retries", value: report.summary.retries }),
      );
      expect(r.stderr).toContain("answered 429");
    });

    it("Sunday: the audit finds no drift (exit 0), the hourly sync nothing to do; nobody the week did not let go lost their login", async () => {
      await runPod("audit", { code: 0, report: false });
      const r = await runPod("sync", { code: 0, report: false });
      expect(r.stdout).toContain("No changes");
      const logins = new Set(emulator.state().idpUsers.map((u) => u.email));
      expect([...intended.keys()].filter((e) => !logins.has(e))).toEqual([]);
      // The shipped sample's two, the staff but the leaver, the first batch, the larger batch.
      expect(intended.size).toBe(2 + 18 - 1 + 3 + 40);
      expect(logins.has(leaver)).toBe(false);
    });
  },
);
