/**
 * The onboarding job of deploy/kubernetes, run as its pod would run it: the CronJob and the
 * ConfigMaps `kubectl kustomize` renders from overlays/onboarding (test/helpers/kustomize.ts),
 * its arguments and environment, the built CLI, the emulator as the service, a fake Kubernetes API (HTTPS, bearer
 * token, service-account folder) for the password Secrets and a Pushgateway stand-in. A run killed
 * with SIGKILL mid-way leaves no created user without a Secret holding the password the service
 * has; the re-run converges; no password ever reaches stdout or stderr.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorState } from "../../src/emulator/types.js";
import { runCli, startCli } from "./run-cli.js";
import { ADMIN, TOKEN, divergence, makeUsers, seedOf, writeDesired } from "../reliability/org.js";
import { startFakeKubeApi } from "../helpers/fake-kube-api.js";
import { startFakePushgateway } from "../helpers/fake-pushgateway.js";
import { find, podRun, render } from "../helpers/kustomize.js";
import { skipWithout } from "../helpers/skips.js";

const USERS = 60;
const users = makeUsers(USERS, { domain: "onboarding.example" });
let dir: string;

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

describe.skipIf(skipWithout(["kubectl"], { what: "the onboarding job", onCi: "run" }))(
  "the onboarding job against the emulator and a fake Kubernetes API",
  () => {
    it("delivers every password to a Secret before its user exists, across a kill -9 and a re-run", async () => {
      const objects = render("onboarding");
      const pod = await podRun(objects, find(objects, "CronJob", "usersync-onboarding"), {
        root: dir,
        token: TOKEN,
      });
      // The batch: the shipped config reads it where the ConfigMap put the sample.
      await writeDesired(pod.at("/etc/usersync/onboarding.yaml"), users);

      const emulator = await startEmulator({
        port: 0,
        tokens: { [TOKEN]: "admin" },
        seed: seedOf(),
        faults: { latencyMs: 3 },
      });
      const kube = await startFakeKubeApi();
      const gateway = await startFakePushgateway();
      try {
        // What differs from the pod (podRun points the mounts into dir): the addresses of the services.
        const env = {
          ...pod.env,
          ...kube.env(),
          USERSYNC_OUTPUT_KUBERNETES_SERVICE_ACCOUNT_DIR: await kube.serviceAccountDir(),
          USERSYNC_OUTPUT_METRICS_PUSH_URL: gateway.url,
          USERSYNC_EXECUTION_REQUESTS_PER_SECOND: "10000",
        };
        const cli = [...pod.args, "--base-url", emulator.url];

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
          (await readFile(pod.at("/var/lib/usersync/onboarding-report.json"), "utf8")) +
          (await readFile(pod.at("/var/lib/usersync/onboarding-journal.jsonl"), "utf8"));
        for (const password of kube.passwords().values()) {
          expect(output.includes(password), "a password in stdout/stderr").toBe(false);
          expect(logged.includes(password), "a password in the report or journal").toBe(false);
        }
        // The re-run's metrics reached the Pushgateway as the job's, grouped by its namespace.
        expect(gateway.pushes.at(-1)?.path).toBe("/metrics/job/usersync-onboarding/namespace/usersync");
      } finally {
        await Promise.all([emulator.close(), kube.close(), gateway.close()]);
      }
    });
  },
);
