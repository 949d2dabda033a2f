import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openKubeSecrets, secretName, SECRET_LABEL } from "../../src/outputs/index.js";
import { SafetyRefusal } from "../../src/errors.js";
import { startFakeKubeApi } from "../helpers/fake-kube-api.js";

describe("generated passwords delivered as Kubernetes Secrets", () => {
  let kube: Awaited<ReturnType<typeof startFakeKubeApi>>;
  beforeEach(async () => {
    kube = await startFakeKubeApi();
  });
  afterEach(async () => {
    await kube.close();
  });

  it("writes one Secret per user before the password is handed back", async () => {
    const provider = await openKubeSecrets({
      prefix: "usersync-password",
      env: kube.env(),
      serviceAccountDir: await kube.serviceAccountDir(),
    });
    const password = await provider.passwordFor("Ada@Example.com");
    await provider.close();
    const stored = kube.secrets.get(`iam/${secretName("usersync-password", "ada@example.com")}`);
    expect(stored?.metadata.labels).toMatchObject({
      [SECRET_LABEL]: "true",
      "app.kubernetes.io/managed-by": "usersync",
    });
    expect(stored?.metadata.annotations?.["usersync.io/email"]).toBe("Ada@Example.com");
    expect(kube.passwords().get("Ada@Example.com")).toBe(password);
    expect(password).toMatch(/^.{20}$/);
  });

  it("reuses this run's password for a retried create, never a Secret from an earlier run", async () => {
    const dir = await kube.serviceAccountDir();
    const first = await openKubeSecrets({ prefix: "p", env: kube.env(), serviceAccountDir: dir });
    const a = await first.passwordFor("ada@example.com");
    expect(await first.passwordFor("Ada@example.com")).toBe(a);
    await first.close();
    const second = await openKubeSecrets({ prefix: "p", env: kube.env(), serviceAccountDir: dir });
    const b = await second.passwordFor("ada@example.com");
    await second.close();
    expect(b).not.toBe(a);
    expect(kube.passwords().get("ada@example.com")).toBe(b);
  });

  it("replaces an older Secret with a fresh password", async () => {
    const dir = await kube.serviceAccountDir();
    const first = await openKubeSecrets({
      prefix: "p",
      env: kube.env(),
      serviceAccountDir: dir,
      now: () => new Date("2020-01-01T00:00:00Z"),
    });
    const a = await first.passwordFor("ada@example.com");
    await first.close();
    const second = await openKubeSecrets({ prefix: "p", env: kube.env(), serviceAccountDir: dir });
    const b = await second.passwordFor("ada@example.com");
    await second.close();
    expect(b).not.toBe(a);
    expect(kube.passwords().get("ada@example.com")).toBe(b);
  });

  it("a wrong token is refused when the provider opens, before any user is created", async () => {
    const dir = await kube.serviceAccountDir("wrong-token");
    await expect(openKubeSecrets({ prefix: "p", env: kube.env(), serviceAccountDir: dir })).rejects.toThrow(
      /401.*RoleBinding/,
    );
  });

  it("outside a pod (no KUBERNETES_SERVICE_HOST) it refuses with advice", async () => {
    await expect(
      openKubeSecrets({ prefix: "p", env: {}, serviceAccountDir: "/nonexistent" }),
    ).rejects.toBeInstanceOf(SafetyRefusal);
  });
});
