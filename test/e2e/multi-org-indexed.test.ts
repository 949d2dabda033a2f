/**
 * Issue 31: the shipped multi-org overlay (deploy/kubernetes/overlays/multi-org), rendered by
 * `kubectl kustomize`, run the way the Job controller runs an Indexed Job: one process per index,
 * JOB_COMPLETION_INDEX set and the container's $(VAR) arguments expanded, two at a time
 * (parallelism 2), every pod sharing the state volume. Each index syncs the target at its place
 * in the sorted names against its own emulator, with the token of its own Secret; one index whose
 * token was refused (exit 1) leaves the others converged; every pod pushes metrics labelled with
 * its organization. Then a target is added to the config under the rendered Job: the index that
 * would now name another organization is refused (exit 4) and sends nothing.
 *
 * Only the organizations' URLs differ from the shipped config (its example.com hosts are these
 * emulators), as the week-in-production test points USERSYNC_TARGET_BASE_URL at its emulator.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle } from "../../src/emulator/types.js";
import { startFakePushgateway } from "../helpers/fake-pushgateway.js";
import {
  find,
  findKubectl,
  jobSpecOf,
  podRun,
  podSpecOf,
  render,
  type K8sObject,
} from "../helpers/kustomize.js";
import { runCli, type CliResult } from "./run-cli.js";

const NAMES = ["alpha", "beta", "gamma"] as const;

let dir: string;
let objects: K8sObject[];
let cronJob: K8sObject;
const emulators: Record<string, EmulatorHandle> = {};
let gateway: Awaited<ReturnType<typeof startFakePushgateway>>;

/** One pod of the Job at `index`, run to its end; `config` replaces the mounted multi-org.yaml's text. */
async function runIndex(index: number, config?: (text: string) => string): Promise<CliResult> {
  const run = await podRun(objects, cronJob, {
    root: join(dir, `pod-${index}`),
    token: "",
    claims: { "usersync-state": join(dir, "state-volume") },
  });
  const configFile = run.at("/etc/usersync/multi-org.yaml");
  let text = await readFile(configFile, "utf8");
  for (const name of NAMES) text = text.replace(`https://${name}.bi.example.org`, emulators[name]!.url);
  await writeFile(configFile, config ? config(text) : text);
  // The projected token volume as the kubelet lays it out: each Secret usersync-token-<name> at its path.
  const token = (podSpecOf(cronJob)["volumes"] as K8sObject[]).find((v) => v["name"] === "token")!;
  for (const { secret } of token["projected"]["sources"] as K8sObject[]) {
    const file = run.at(join("/var/run/secrets/usersync", secret["items"][0]["path"] as string));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${(secret["name"] as string).replace("usersync-token-", "")}-token\n`);
  }
  const env: Record<string, string> = {
    ...run.env,
    JOB_COMPLETION_INDEX: String(index),
    USERSYNC_OUTPUT_METRICS_PUSH_URL: gateway.url,
  };
  // The kubelet expands $(VAR) in the arguments from the container's environment.
  const args = run.args.map((a) =>
    a.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, v: string) => env[v] ?? m),
  );
  return runCli(args, { cwd: dir, env });
}

describe.skipIf(findKubectl() === undefined)("the multi-org overlay as an Indexed Job", () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "usersync-indexed-"));
    objects = render("multi-org");
    cronJob = find(objects, "CronJob", "usersync");
    gateway = await startFakePushgateway();
    // beta's token was rotated in the service but not yet in its Secret: its runs fail (401).
    for (const name of NAMES)
      emulators[name] = await startEmulator({
        port: 0,
        tokens: { [name === "beta" ? "beta-token-rotated" : `${name}-token`]: "admin" },
      });
  });
  afterAll(async () => {
    for (const e of Object.values(emulators)) await e.close();
    await gateway?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("runs each index as its organization, isolated, two at a time", async () => {
    const job = jobSpecOf(cronJob);
    expect(job["completions"]).toBe(NAMES.length);
    const codes: number[] = [];
    const stderr: string[] = [];
    for (let i = 0; i < job["completions"]; i += job["parallelism"]) {
      const batch = Array.from(
        { length: Math.min(job["parallelism"], job["completions"] - i) },
        (_, k) => i + k,
      );
      const results = await Promise.all(batch.map((index) => runIndex(index)));
      results.forEach((r, k) => {
        codes[batch[k]!] = r.code!;
        stderr[batch[k]!] = r.stderr;
      });
    }
    expect(codes).toEqual([0, 1, 0]);
    // beta's pod ends with one JSON line naming the error and the organization.
    const last = JSON.parse(stderr[1]!.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ level: 60, exitCode: 1, organization: "beta" });
    // Each organization got its people only: edsger is beta's and gamma's, never alpha's.
    const emails = (name: string): string[] =>
      emulators[name]!.state()
        .mappings.flatMap((m) => (m.email ? [m.email] : []))
        .sort();
    expect(emails("alpha")).toEqual(["ada@example.com", "alan@example.com"]);
    expect(emails("gamma")).toEqual(["barbara@example.com", "edsger@example.com"]);
    expect(emails("beta")).toEqual([]);
    // Every pod's own files on the shared volume, and its metrics pushed under its organization.
    for (const name of ["alpha", "gamma"])
      expect(await readdir(join(dir, "state-volume", name))).toEqual(expect.arrayContaining(["state.json"]));
    const exitCodes = gateway.pushes.map((p) => {
      const s = p.samples.find((x) => x.name === "usersync_last_exit_code")!;
      return [p.path.match(/organization\/([a-z]+)/)?.[1], s.labels["organization"], s.value];
    });
    expect(exitCodes.sort()).toEqual([
      ["alpha", "alpha", 0],
      ["beta", "beta", 1],
      ["gamma", "gamma", 0],
    ]);
  });

  it("refuses an index whose target list changed under the Job, sending nothing", async () => {
    const before = emulators["gamma"]!.counters().requests;
    const addDelta = (text: string): string => {
      const config = parse(text) as { targets: Array<Record<string, unknown>> };
      config.targets.push({
        name: "delta",
        baseUrl: "https://delta.example.com",
        select: { groups: ["org-delta"] },
      });
      return stringify(config);
    };
    const r = await runIndex(2, addDelta);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /rendered for the targets alpha, beta, gamma .* but the config lists alpha, beta, delta, gamma/,
    );
    expect(emulators["gamma"]!.counters().requests).toBe(before);
  });
});
