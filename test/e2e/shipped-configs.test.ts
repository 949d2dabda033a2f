/**
 * Every config usersync ships is valid (issue 40): config.example.yaml, every config of the
 * Kubernetes components (deploy/kubernetes/components: each source's one-organization and
 * many-organization config, the onboarding batch's) and every config block of the README and
 * docs/*.md, through the built CLI. Each is laid out as a pod would see it (the paths it names
 * under /etc/usersync, /var/lib/usersync and /var/run/secrets pointed into a folder, with the
 * component's sample files and a token there), then `validate --config` must pass, and where
 * the config can reach a stand-in a dry `plan` runs against the emulator: a file source, Entra
 * through the Graph stand-in (src/emulator/graph) with a tenant whose groups the shipped rules
 * pick, and Google through the Google stand-in (src/emulator/google) signed in by workload
 * identity federation, as the component's pods are, with a customer whose groups the shipped
 * rules pick. A shipped example that validate refuses fails here, naming the file.
 *
 * Doc blocks that are fragments of a directory's settings (LDAP, Okta) are validated with a
 * desired-state file given to validate (the config is loaded and checked whole; the directory
 * is not read).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { startEmulator } from "../../src/emulator/index.js";
import type { EmulatorHandle, EmulatorSeed, EmulatorSignIn } from "../../src/emulator/types.js";
import { startGraphStandIn, type GraphStandIn, type GraphTenant } from "../../src/emulator/graph/server.js";
import { entraSettings, SECRET, smallTenant, TLS } from "../helpers/entra.js";
import type { GoogleStandIn } from "../../src/emulator/google/server.js";
import { CA_FILE, DOMAIN, smallCustomer, startGoogle, U, writeFederation } from "../helpers/google.js";
import { markdownFiles } from "./doc-blocks.js";
import { ROOT, runCli, withTempDir } from "./run-cli.js";

const TOKEN = "shipped-configs-token-3f9";
const OIDC: EmulatorSignIn = {
  oauthIssuerLocation: "https://login.microsoftonline.com/t/v2.0",
  oauthSubjectIdClaim: "oid",
};
const DEMO_USERS = join(ROOT, "fixtures", "demo", "users.yaml");

interface Shipped {
  /** Where it is: a file, or a doc file and line. */
  name: string;
  text: string;
  /** The folder of the sample files it names under /etc/usersync (a component's). */
  samples?: string;
}

type Tree = Record<string, unknown>;

async function componentConfigs(): Promise<Shipped[]> {
  const base = join(ROOT, "deploy", "kubernetes", "components");
  const out: Shipped[] = [];
  for (const entry of await readdir(base, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/^(usersync|multi-org|onboarding-config)\.yaml$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    out.push({ name: relative(ROOT, file), text: await readFile(file, "utf8"), samples: entry.parentPath });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** YAML blocks of the README and docs that are configs (a config section at the top, no desired state or manifest). */
async function docConfigs(): Promise<Shipped[]> {
  const out: Shipped[] = [];
  for (const file of await markdownFiles(ROOT)) {
    const text = await readFile(join(ROOT, file), "utf8");
    for (const m of text.matchAll(/^```ya?ml[^\n]*\n([\s\S]*?)^```$/gm)) {
      const body = m[1]!;
      if (
        !/^(target|source|policy|targets|output|state|identity|permissions|execution|logging|dataFilters):/m.test(
          body,
        )
      )
        continue;
      // Not a desired state, a manifest or an emulator seed.
      if (
        /^(version|apiVersion|kind|users|workspaces|organizationPermissions|idpUsers|mappings):/m.test(body)
      )
        continue;
      out.push({ name: `${file}:${text.slice(0, m.index).split("\n").length}`, text: body });
    }
  }
  return out;
}

/** A tenant whose groups every shipped Entra rule picks (Analytics-*, Analytics Admins, Org-*). */
function shippedTenant(): GraphTenant {
  const tenant = smallTenant();
  const user = (id: string, name: string) => ({
    id,
    userPrincipalName: `${name}@contoso.onmicrosoft.com`,
    mail: `${name}@contoso.com`,
    displayName: name,
    givenName: name,
    surname: "Example",
    accountEnabled: true,
    userType: "Member",
  });
  const ids = (n: number) => `2b000000-0000-4000-8000-0000000000${String(n).padStart(2, "0")}`;
  const people = ["ada", "alan", "grace", "edsger", "barbara"].map((n, i) => user(ids(i + 1), n));
  const group = (n: number, displayName: string, members: string[]) => ({
    id: `3c000000-0000-4000-8000-0000000000${String(n).padStart(2, "0")}`,
    displayName,
    mailNickname: displayName.toLowerCase(),
    securityEnabled: true,
    groupTypes: [],
    members,
  });
  return {
    ...tenant,
    users: [...tenant.users, ...people],
    groups: [
      ...tenant.groups,
      group(1, "Analytics-Sales", [ids(1), ids(2)]),
      group(2, "Analytics-Finance", [ids(3)]),
      group(3, "Analytics Admins", [ids(1)]),
      group(4, "Org-Alpha", [ids(1), ids(2)]),
      group(5, "Org-Beta", [ids(3), ids(4)]),
      group(6, "Org-Gamma", [ids(4), ids(5)]),
    ],
  };
}

/** A customer whose groups every shipped Google rule picks (analytics-*, analytics-admins, org-*). */
function shippedCustomer() {
  const customer = smallCustomer();
  const group = (name: string, members: string[]) => ({
    id: `03abc000${name.replace(/-/g, "")}`,
    email: `${name}@${DOMAIN}`,
    name,
    members: members.map((id) => ({ id, type: "USER" as const })),
  });
  return {
    ...customer,
    groups: [
      ...customer.groups,
      group("analytics-admins", [U.ada]),
      group("org-alpha", [U.ada, U.grace]),
      group("org-beta", [U.ken]),
      group("org-gamma", [U.grace, U.ken]),
    ],
  };
}

let emulator: EmulatorHandle;
let graph: GraphStandIn;
let google: GoogleStandIn;
/** The service for Google-fed configs: Google signs people in, keyed by sub (the Google id). */
let googleService: EmulatorHandle;
beforeAll(async () => {
  // The group the sync's users.yaml declares, as the onboarding batch finds it after the first sync.
  emulator = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    signIn: OIDC,
    // The demo's workspaces, which a fragment checked against the demo's people grants access to.
    seed: {
      groups: [{ id: "analytics", name: "Analytics" }],
      workspaces: (
        parse(await readFile(join(ROOT, "fixtures", "demo", "organization.yaml"), "utf8")) as {
          workspaces: NonNullable<EmulatorSeed["workspaces"]>;
        }
      ).workspaces.map(({ id, name, parent }) => ({
        id,
        ...(name ? { name } : {}),
        ...(parent ? { parent } : {}),
      })),
    },
  });
  // Idle for longer than the slowest test here (the stand-in stops by itself after that).
  graph = await startGraphStandIn({ tenant: shippedTenant(), tls: TLS, idleMs: 900_000 });
  google = await startGoogle({ ...shippedCustomer(), idleMs: 900_000 });
  googleService = await startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    signIn: { oauthIssuerLocation: "https://accounts.google.com", oauthSubjectIdClaim: "sub" },
    seed: { workspaces: [{ id: "demo", name: "Demo" }] },
  });
});
afterAll(async () => {
  await emulator?.close();
  await graph?.close();
  await google?.close();
  await googleService?.close();
});

/**
 * The config as its pod (or a person's checkout) would run it here: pod paths pointed into
 * `dir` (the component's samples copied under etc/, a token under each secrets path), every
 * organization at the emulator, Entra and Google at their stand-ins (Google through workload
 * identity federation, as the component's pods sign in). Returns the file and what can run.
 */
async function localize(
  shipped: Shipped,
  dir: string,
): Promise<{ file: string; source: string; targets: boolean }> {
  const config = (parse(shipped.text) ?? {}) as Tree;
  const source = ((config["source"] as Tree | undefined)?.["type"] as string | undefined) ?? "file";
  const targets = Array.isArray(config["targets"]) && config["targets"].length > 0;
  const names = targets ? (config["targets"] as Tree[]).map((t) => String(t["name"])) : [];
  const tokens: string[] = [];
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") {
      if (node.startsWith("/etc/usersync/")) {
        const sample = shipped.samples ? join(shipped.samples, basename(node)) : undefined;
        return sample && existsSync(sample) ? sample : DEMO_USERS;
      }
      for (const root of ["/var/lib/usersync/", "/var/run/secrets/"])
        if (node.startsWith(root)) {
          const at = join(dir, root.slice(1), node.slice(root.length));
          if (root === "/var/run/secrets/" && /token$/.test(node)) tokens.push(at);
          return at;
        }
      return node;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object")
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    return node;
  };
  const local = walk(config) as Tree;
  const service = source === "google" ? googleService : emulator;
  const target = (local["target"] ?? {}) as Tree;
  if (target["baseUrl"] !== "embedded") target["baseUrl"] = service.url;
  if (target["tokenFile"] === undefined) target["tokenEnv"] = "USERSYNC_TOKEN";
  local["target"] = target;
  if (targets)
    for (const t of local["targets"] as Tree[]) if (t["baseUrl"] !== "embedded") t["baseUrl"] = service.url;
  // A block that names its file in a first comment (`# fixtures/multi-org/usersync.yaml`) reads
  // its desired state (and groups file) beside that file, as the docs run it.
  const named = /^#\s*(\S+\.ya?ml)\s*$/m.exec(shipped.text.split("\n")[0] ?? "")?.[1];
  const src = local["source"] as Tree | undefined;
  if (named && existsSync(join(ROOT, named)))
    for (const key of ["desired", "groups"])
      if (typeof src?.[key] === "string") src[key] = join(ROOT, dirname(named), src[key]);
  // A directory fragment is checked against the demo's people, who sign in with built-in logins:
  // the fragment's identity.default (external, for the directory's SSO people) is not theirs.
  if (source !== "file" && source !== "entra" && source !== "google")
    delete (local["identity"] as Tree | undefined)?.["default"];
  if (source === "entra") {
    const s = local["source"] as Tree;
    const shippedEntra = s["entra"] as Tree;
    s["entra"] = { ...entraSettings(graph.url), groups: shippedEntra["groups"] };
  }
  if (source === "google") {
    // The shipped rules, read at the stand-in with a federation config as gcloud writes it (its
    // token file the pod's projected token); a doc's delegation subject has no key here.
    const s = local["source"] as Tree;
    const { groups } = s["google"] as Tree;
    s["google"] = {
      apiUrl: google.url,
      caFile: CA_FILE,
      credentialsFile: await writeFederation(dir, google.url),
      groups,
    };
  }
  for (const token of tokens)
    for (const name of names.length > 0 ? names : [""]) {
      const file = token.replace("{target}", name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, `${TOKEN}\n`);
    }
  const file = join(dir, "usersync.yaml");
  await writeFile(file, stringify(local));
  return { file, source, targets };
}

const env = { USERSYNC_TOKEN: TOKEN, USERSYNC_ENTRA_CLIENT_SECRET: SECRET };

async function check(shipped: Shipped): Promise<void> {
  await withTempDir(async (dir) => {
    const { file, source, targets } = await localize(shipped, dir);
    // The directory is read by validate (Entra: the stand-in); a file source's desired state is
    // its own (or, for a fragment that names none, the demo's); LDAP and Okta fragments are
    // checked against a desired-state file.
    const readsDirectory = source === "entra" || source === "google";
    const config = parse(await readFile(file, "utf8")) as Tree;
    const desired = ((config["source"] as Tree | undefined)?.["desired"] as string | undefined) ?? undefined;
    const positional = readsDirectory ? [] : desired !== undefined && !targets ? [] : [DEMO_USERS];
    const validate = await runCli(["validate", "--config", file, ...positional], { env, cwd: dir });
    expect(validate.code, `${shipped.name}: validate\n${validate.stdout}${validate.stderr}`).toBe(0);
    expect(validate.stdout, shipped.name).toMatch(/^OK: /m);
    if (source !== "file" && source !== "entra" && source !== "google") return;
    const plan = await runCli(
      [
        "plan",
        "--config",
        file,
        ...(targets ? ["--all-targets"] : []),
        ...(positional.length > 0 && !targets ? ["--desired", DEMO_USERS] : []),
      ],
      {
        env,
        cwd: dir,
      },
    );
    expect([0, 2], `${shipped.name}: plan\n${plan.stdout}${plan.stderr}`).toContain(plan.code);
    expect(plan.stdout, shipped.name).toMatch(/Summary|No changes/);
  });
}

describe("every shipped config validates through the built CLI", () => {
  it("config.example.yaml", async () => {
    await check({
      name: "config.example.yaml",
      text: await readFile(join(ROOT, "config.example.yaml"), "utf8"),
    });
  }, 60_000);

  it("each config of the Kubernetes components, and a dry plan against the emulator and the Graph and Google stand-ins", async () => {
    const configs = await componentConfigs();
    expect(configs.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        "deploy/kubernetes/components/schedule/onboarding/onboarding-config.yaml",
        "deploy/kubernetes/components/source/entra/multi-org.yaml",
        "deploy/kubernetes/components/source/entra/usersync.yaml",
        "deploy/kubernetes/components/source/file/multi-org.yaml",
        "deploy/kubernetes/components/source/file/usersync.yaml",
        "deploy/kubernetes/components/source/google/multi-org.yaml",
        "deploy/kubernetes/components/source/google/usersync.yaml",
        "deploy/kubernetes/components/source/ldap/usersync.yaml",
        "deploy/kubernetes/components/source/okta/usersync.yaml",
      ]),
    );
    for (const c of configs) await check(c);
  }, 300_000);

  it("each config block of the README and docs/*.md", async () => {
    const blocks = await docConfigs();
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    for (const b of blocks) await check(b);
  }, 300_000);

  it("the check is not a no-op: the Entra config without allowManage is refused, naming the rule", async () => {
    const shipped = (await componentConfigs()).find((c) => c.name.endsWith("source/entra/usersync.yaml"))!;
    const without = shipped.text.replace("allowManage: true", "allowManage: false");
    expect(without).not.toBe(shipped.text);
    await withTempDir(async (dir) => {
      const { file } = await localize({ ...shipped, text: without }, dir);
      const r = await runCli(["validate", "--config", file], { env, cwd: dir });
      expect(r.code).toBe(4);
      expect(r.stdout + r.stderr).toContain("organization-manage-not-allowed");
    });
  }, 60_000);
});
