/**
 * The onboarding Job of deploy/kubernetes, run as the pod would run it: its ConfigMap config and
 * its arguments, the built CLI, the emulator as the service, a fake Kubernetes API (HTTPS, bearer
 * token, service-account folder) for the password Secrets and a Pushgateway stand-in. A run killed
 * with SIGKILL mid-way leaves no created user without a Secret holding the password the service
 * has; the re-run converges; no password ever reaches stdout or stderr.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorState } from "../../src/emulator/types.js";
import { ROOT, runCli, startCli } from "./run-cli.js";
import { ADMIN, TOKEN, divergence, makeUsers, seedOf, writeDesired } from "../reliability/org.js";
import { startFakeKubeApi } from "../helpers/fake-kube-api.js";
import { startFakePushgateway } from "../helpers/fake-pushgateway.js";

const USERS = 60;
const users = makeUsers(USERS, { domain: "onboarding.example" });
let dir: string;

type Obj = Record<string, unknown>;

/** The onboarding Job's args and the ConfigMap entry they name. */
async function onboardingJob(): Promise<{ args: string[]; configs: Record<string, string> }> {
  const docs: Obj[] = [];
  for (const file of ["onboarding-job.yaml", "configmap.yaml"])
    for (const d of parseAllDocuments(await readFile(join(ROOT, "deploy/kubernetes", file), "utf8")))
      docs.push(d.toJS() as Obj);
  const job = docs.find((d) => d["kind"] === "Job") as {
    spec: { template: { spec: { containers: { args: string[] }[] } } };
  };
  const cm = docs.find((d) => d["kind"] === "ConfigMap") as { data: Record<string, string> };
  return { args: job.spec.template.spec.containers[0]!.args, configs: cm.data };
}

function unknownPasswords(state: EmulatorState, secrets: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const u of state.idpUsers) {
    if (u.email === ADMIN.email) continue;
    const inSecret = secrets.get(u.email);
    if (inSecret === undefined) out.push(`${u.email}: created, but no Secret`);
    else if (inSecret !== u.password) out.push(`${u.email}: the Secret does not hold the stored password`);
  }
  return out;
}

function afterWrites(emulator: EmulatorHandle, writes: number, exited: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    let stop = false;
    void exited.then(() => (stop = true));
    const timer = setInterval(() => {
      const c = emulator.counters().byMethod;
      if (stop || (c["POST"] ?? 0) + (c["PUT"] ?? 0) >= writes) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "usersync-k8s-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the onboarding Job against the emulator and a fake Kubernetes API", () => {
  it("delivers every password to a Secret before its user exists, across a kill -9 and a re-run", async () => {
    const { args, configs } = await onboardingJob();
    const configPath = args[args.indexOf("--config") + 1]!;
    const key = configPath.replace("/etc/usersync/", "");
    await writeFile(join(dir, key), configs[key]!);
    await writeFile(join(dir, "token"), TOKEN);
    await writeDesired(join(dir, "onboarding.yaml"), users);

    const emulator = await startEmulator({
      port: 0,
      tokens: { [TOKEN]: "admin" },
      seed: seedOf(),
      faults: { latencyMs: 3 },
    });
    const kube = await startFakeKubeApi();
    const gateway = await startFakePushgateway();
    try {
      // What differs from the pod: where the mounted files are, and the addresses of the services.
      const env = {
        ...kube.env(),
        USERSYNC_TARGET_TOKEN_FILE: join(dir, "token"),
        USERSYNC_SOURCE_DESIRED: join(dir, "onboarding.yaml"),
        USERSYNC_OUTPUT_REPORT: join(dir, "report.json"),
        USERSYNC_OUTPUT_JOURNAL: join(dir, "journal.jsonl"),
        USERSYNC_OUTPUT_KUBERNETES_SERVICE_ACCOUNT_DIR: await kube.serviceAccountDir(),
        USERSYNC_OUTPUT_METRICS_PUSH_URL: gateway.url,
        USERSYNC_EXECUTION_REQUESTS_PER_SECOND: "10000",
      };
      const cli = [...args.map((a) => (a === configPath ? join(dir, key) : a)), "--base-url", emulator.url];

      const run = startCli(cli, { env });
      await afterWrites(emulator, USERS / 2, run.done);
      run.child.kill("SIGKILL");
      const killed = await run.done;
      expect(killed.signal, killed.stderr).toBe("SIGKILL");
      const atKill = emulator.state();
      expect(atKill.idpUsers.length).toBeGreaterThan(1);
      expect(unknownPasswords(atKill, kube.passwords())).toEqual([]);

      const again = await runCli(cli, { env });
      expect(again.code, again.stderr).toBe(0);
      const state = emulator.state();
      expect(divergence(state, users)).toEqual([]);
      expect(unknownPasswords(state, kube.passwords())).toEqual([]);
      expect(kube.passwords().size).toBe(USERS);

      const output = killed.stdout + killed.stderr + again.stdout + again.stderr;
      const logged =
        (await readFile(join(dir, "report.json"), "utf8")) +
        (await readFile(join(dir, "journal.jsonl"), "utf8"));
      for (const password of kube.passwords().values()) {
        expect(output.includes(password), "a password in stdout/stderr").toBe(false);
        expect(logged.includes(password), "a password in the report or journal").toBe(false);
      }
      // The re-run's metrics reached the Pushgateway under the Job's config.
      expect(gateway.pushes.at(-1)?.path).toBe("/metrics/job/usersync/namespace/usersync");
    } finally {
      await Promise.all([emulator.close(), kube.close(), gateway.close()]);
    }
  });
});
