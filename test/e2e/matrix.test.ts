/**
 * Issue 38 (item 8): one matrix through the BUILT CLI against the emulator, every source × the
 * access features together × {one organization, three targets}. The same small company in each
 * source: p1 in sales, p2 in sales and eng, p3 and p4 in eng. One config carries workspace
 * permissions (the group rule's `workspaces`), a data filter (the rule's `dataFilters`, with
 * `dataFilters.workspaces` set) and a grace period (`policy.revokeAfter` with `state.file`).
 *
 * For each source and layout: `apply --yes` exits 0 and a re-plan is empty; the store has the
 * mappings, memberships, grants and the filter the rules say (each organization its slice only);
 * then p4 leaves the source and the re-plan keeps them, pending, not revoked.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Attribute, Change, Client } from "ldapts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { renderMaql } from "../../src/data-filters.js";
import { startEmulator } from "../../src/emulator/index.js";
import type { GraphStandIn } from "../../src/emulator/graph/server.js";
import type { GraphTenant } from "../../src/emulator/graph/directory.js";
import { oktaGroupId, oktaUserId } from "../../src/emulator/okta/directory.js";
import type { OktaGroup } from "../../src/emulator/okta/types.js";
import type { EmulatorHandle, EmulatorSignIn } from "../../src/emulator/types.js";
import type { GoogleGroup } from "../../src/emulator/google/types.js";
import type { GoogleStandIn } from "../../src/emulator/google/server.js";
import { ADMIN, googleSettings, startGoogle, writeKey } from "../helpers/google.js";
import { entraSettings, SECRET, smallTenant, startStandIn } from "../helpers/entra.js";
import { serviceAppSource, startOkta, type OktaFixture } from "../helpers/okta.js";
import {
  READER_DN,
  READER_PASSWORD,
  ROOT_DN,
  ROOT_PASSWORD,
  slapdAvailable,
  startSlapd,
  SUFFIX,
  type Slapd,
} from "../helpers/slapd.js";
import { runCli, withTempDir } from "./run-cli.js";

const TIMEOUT = 180_000;
const TOKEN = "matrix-e2e-token-4d7";
const DOMAIN = "example.com";

/** Who is in which group, the same in every source; p4 is the one who leaves. */
const PEOPLE: Record<string, string[]> = {
  p1: ["sales"],
  p2: ["eng", "sales"],
  p3: ["eng"],
  p4: ["eng"],
};
const LEAVER = "p4";
const email = (p: string): string => `${p}@${DOMAIN}`;
const membersOf = (g: string): string[] => Object.keys(PEOPLE).filter((p) => PEOPLE[p]!.includes(g));

/** What every source's group rules say, for a group named `sales` or `eng`. */
const SALES_ACCESS = {
  workspaces: { sales: ["VIEW"] },
  dataFilters: { sales: { label: "region", values: ["EMEA"] } },
};
const ENG_ACCESS = { workspaces: { eng: ["ANALYZE"] } };
const WORKSPACES = [{ id: "all" }, { id: "sales", parent: "all" }, { id: "eng", parent: "all" }];

interface Source {
  /** How the emulator signs people in (an external provider for the directories). */
  signIn?: EmulatorSignIn;
  env: Record<string, string>;
  /** The `source:` section (and any extra top-level keys), files written into `dir`. */
  section(dir: string): Promise<Record<string, unknown>>;
  /** Takes the leaver out of the source; `restore` puts them back. */
  remove(): Promise<void>;
  restore(): Promise<void>;
  /**
   * Issue 45 (file and Entra): marks the leaver gone in the source (`state: absent`, an account
   * disabled), so `estate` runs every command and checks the leaver leaves every organization.
   */
  disable?(): Promise<void>;
}

type Layout = "one" | "three";
const TARGETS: Record<string, string[]> = { all: ["sales", "eng"], sales: ["sales"], eng: ["eng"] };

async function emulatorFor(source: Source): Promise<EmulatorHandle> {
  return startEmulator({
    port: 0,
    tokens: { [TOKEN]: "admin" },
    seed: { workspaces: WORKSPACES },
    ...(source.signIn ? { signIn: source.signIn } : {}),
  });
}

async function writeConfig(
  dir: string,
  source: Source,
  layout: Layout,
  emulators: Record<string, EmulatorHandle>,
): Promise<string> {
  const file = join(dir, "usersync.yaml");
  const where =
    layout === "one"
      ? { target: { baseUrl: emulators["main"]!.url, allowInsecureHttp: true } }
      : {
          targets: Object.entries(TARGETS).map(([name, groups]) => ({
            name,
            baseUrl: emulators[name]!.url,
            select: { groups },
          })),
        };
  await writeFile(
    file,
    stringify({
      ...where,
      ...(await source.section(dir)),
      permissions: { workspaces: "all" },
      dataFilters: { workspaces: "all" },
      policy: { mode: "full", deletions: "remove", revokeAfter: "72h", maxDeletes: "100%" },
      state: { file: join(dir, "{target}-state.json") },
      execution: { requestsPerSecond: 10_000 },
      logging: { format: "json", level: "warn" },
    }),
  );
  return file;
}

const tokens = (layout: Layout): Record<string, string> =>
  layout === "one"
    ? { USERSYNC_TOKEN: TOKEN }
    : Object.fromEntries(Object.keys(TARGETS).map((n) => [`USERSYNC_TOKEN_${n.toUpperCase()}`, TOKEN]));

/** email → groups of the people usersync manages in an organization. */
const members = (e: EmulatorHandle): Record<string, string[]> =>
  Object.fromEntries(
    e
      .state()
      .mappings.filter((m) => m.email?.endsWith(`@${DOMAIN}`))
      .map((m) => [m.email, [...m.groups].sort()]),
  );

/** What an organization that receives `groups` must hold. */
function expectOrganization(e: EmulatorHandle, groups: string[]): void {
  const expected = Object.fromEntries(
    Object.entries(PEOPLE)
      .map(([p, gs]) => [email(p), gs.filter((g) => groups.includes(g))] as const)
      .filter(([, gs]) => gs.length > 0),
  );
  expect(members(e)).toEqual(expected);
  const state = e.state();
  expect(state.groups.map((g) => g.id).sort()).toEqual([...groups].sort());
  const grants = (ws: string) =>
    state.workspaces
      ?.find((w) => w.id === ws)
      ?.permissions?.filter((p) => p.userGroup !== undefined)
      .map((p) => ({ userGroup: p.userGroup, permissions: p.permissions, hierarchy: p.hierarchy ?? [] })) ??
    [];
  expect(grants("sales")).toEqual(
    groups.includes("sales") ? [{ userGroup: "sales", permissions: ["VIEW"], hierarchy: [] }] : [],
  );
  expect(grants("eng")).toEqual(
    groups.includes("eng") ? [{ userGroup: "eng", permissions: ["ANALYZE"], hierarchy: [] }] : [],
  );
  expect(grants("all")).toEqual([]);
  const filters = (state.dataFilters ?? []).map((f) => ({
    workspace: f.workspace,
    userGroup: f.userGroup,
    user: f.user,
    maql: f.maql,
  }));
  expect(filters).toEqual(
    groups.includes("sales")
      ? [{ workspace: "sales", userGroup: "sales", user: undefined, maql: renderMaql("region", ["EMEA"]) }]
      : [],
  );
}

async function scenario(source: Source, layout: Layout): Promise<void> {
  await withTempDir(async (dir) => {
    const names = layout === "one" ? ["main"] : Object.keys(TARGETS);
    const emulators: Record<string, EmulatorHandle> = {};
    try {
      for (const n of names) emulators[n] = await emulatorFor(source);
      const config = await writeConfig(dir, source, layout, emulators);
      const env = { ...source.env, ...tokens(layout) };
      const all = layout === "one" ? [] : ["--all-targets"];

      const apply = await runCli(["apply", "--config", config, "--yes", ...all], { env });
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
      const again = await runCli(["plan", "--config", config, "--detailed-exitcode", ...all], { env });
      expect(again.code, again.stdout + again.stderr).toBe(0);

      if (layout === "one") expectOrganization(emulators["main"]!, ["sales", "eng"]);
      else for (const [n, groups] of Object.entries(TARGETS)) expectOrganization(emulators[n]!, groups);

      // The leaver's mapping id, as the source made it (the directories' own ids differ).
      const leaverId = Object.values(emulators)[0]!
        .state()
        .mappings.find((m) => m.email === email(LEAVER))?.id;
      expect(leaverId).toBeDefined();
      if (source.disable) await estate({ dir, config, env, all, source, emulators, leaverId: leaverId! });
      await source.remove();
      try {
        const plan = await runCli(["plan", "--config", config, "--detailed-exitcode", ...all], { env });
        // Converged but for p4, who waits: nothing planned now, in every organization they are in.
        expect(plan.code, plan.stdout + plan.stderr).toBe(0);
        const pendingIn = layout === "one" ? 1 : 2;
        expect(plan.stdout.split("1 person pending (policy.revokeAfter).").length - 1).toBe(pendingIn);
        expect(plan.stdout.split("Pending (policy.revokeAfter 72h) (1):").length - 1).toBe(pendingIn);
        expect(plan.stdout).toMatch(
          new RegExp(`user ${leaverId}: not in the source since .*; removed at .* unless they come back`),
        );
        const sync = await runCli(["apply", "--config", config, "--yes", ...all], { env });
        expect(sync.code, sync.stdout + sync.stderr).toBe(0);
        // Kept, with their access, for the grace period.
        for (const [n, e] of Object.entries(emulators))
          if (n !== "sales") expect(members(e)[email(LEAVER)], n).toEqual(["eng"]);
        const converged = await runCli(["plan", "--config", config, "--detailed-exitcode", ...all], { env });
        expect(converged.code, converged.stdout + converged.stderr).toBe(0);
        expect(converged.stdout).toContain("Pending (policy.revokeAfter 72h)");
      } finally {
        await source.restore();
      }
    } finally {
      for (const e of Object.values(emulators)) await e.close();
    }
  });
}

/**
 * Issue 45, items 4, 5 and 10: every command takes the layout's targets (`validate`, `review`,
 * `export`; `plan` and `apply` above), each with its summary; then the leaver is marked gone in
 * the source and `plan --mode incremental` takes them out of every organization where they hold a
 * mapping (the docs' rule for `state: absent`: deleted per policy.deletions, here `remove`).
 */
async function estate(o: {
  dir: string;
  config: string;
  env: Record<string, string>;
  all: string[];
  source: Source;
  emulators: Record<string, EmulatorHandle>;
  leaverId: string;
}): Promise<void> {
  const { dir, config, env, all } = o;
  const three = all.length > 0;
  const summary = /^Targets: 3, exit 0/m;
  const validate = await runCli(["validate", "--config", config, ...all], { env });
  expect(validate.code, validate.stdout + validate.stderr).toBe(0);
  expect(validate.stdout).toMatch(three ? summary : /^OK: /m);
  const out = (name: string) => join(dir, name);
  const review = await runCli(
    ["review", "--config", config, "--format", "json", "--out", out("review.json"), ...all],
    {
      env,
    },
  );
  expect(review.code, review.stdout + review.stderr).toBe(0);
  const exported = await runCli(["export", "--config", config, "--out", out("export.yaml"), ...all], { env });
  expect(exported.code, exported.stdout + exported.stderr).toBe(0);
  for (const n of Object.keys(o.emulators)) {
    // Each organization's own review and export: its people.
    const file = (f: string) => (three ? out(f.replace(/\.(\w+)$/, `.${n}.$1`)) : out(f));
    expect(JSON.parse(await readFile(file("review.json"), "utf8")).header.kind).toBe(
      "usersync-access-review",
    );
    const text = await readFile(file("export.yaml"), "utf8");
    for (const who of Object.keys(members(o.emulators[n]!))) expect(text, n).toContain(who);
  }
  if (three) for (const r of [review, exported]) expect(r.stdout).toMatch(summary);
  await o.source.disable!();
  try {
    const plan = await runCli(
      ["plan", "--config", config, "--mode", "incremental", "--out", out("plan.json"), ...all],
      {
        env,
      },
    );
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    for (const [n, e] of Object.entries(o.emulators)) {
      const holds = members(e)[email(LEAVER)] !== undefined;
      const saved = JSON.parse(await readFile(three ? out(`plan.${n}.json`) : out("plan.json"), "utf8")) as {
        steps: { id: string; status: string }[];
      };
      const out_ = saved.steps.filter(
        (s) => s.id === `deleteMapping:${o.leaverId}` && s.status === "planned",
      );
      expect(out_.length, `${n}: the leaver ${holds ? "leaves" : "was never there"}`).toBe(holds ? 1 : 0);
    }
  } finally {
    await o.source.restore();
  }
}

function matrix(source: () => Source): void {
  it(
    "one organization: converges with grants and the filter, a leaver is pending",
    async () => {
      await scenario(source(), "one");
    },
    TIMEOUT,
  );
  it(
    "three targets by group: each gets its slice, a leaver is pending where they were",
    async () => {
      await scenario(source(), "three");
    },
    TIMEOUT,
  );
}

// ---------------------------------------------------------------------------------------- file

describe("matrix: a YAML file", () => {
  let leaver: boolean | "absent" = true;
  let path = "";
  const write = async (): Promise<void> => {
    const users = Object.entries(PEOPLE)
      .filter(([p]) => leaver !== false || p !== LEAVER)
      .map(([p, groups]) =>
        leaver === "absent" && p === LEAVER
          ? { email: email(p), id: p, state: "absent" }
          : { email: email(p), id: p, authenticationId: `auth-${p}`, groups },
      );
    await writeFile(
      path,
      stringify({
        version: 1,
        groups: [
          { id: "sales", ...SALES_ACCESS },
          { id: "eng", ...ENG_ACCESS },
        ],
        users,
      }),
    );
  };
  matrix(() => ({
    env: {},
    async section(dir) {
      path = join(dir, "people.yaml");
      leaver = true;
      await write();
      return { source: { desired: path }, identity: { default: "external" } };
    },
    async remove() {
      leaver = false;
      await write();
    },
    async restore() {
      leaver = true;
      await write();
    },
    async disable() {
      leaver = "absent";
      await write();
    },
  }));
});

// ---------------------------------------------------------------------------------------- LDAP

const available = slapdAvailable();
const PEOPLE_OU = `ou=people,${SUFFIX}`;
const GROUPS_OU = `ou=groups,${SUFFIX}`;
const personDn = (p: string): string => `uid=${p},${PEOPLE_OU}`;
const personAttributes = (p: string) => ({
  objectClass: "inetOrgPerson",
  uid: p,
  cn: p,
  sn: p,
  mail: email(p),
});

describe.skipIf(!available)("matrix: LDAP (slapd)", () => {
  let slapd: Slapd;
  beforeAll(async () => {
    const people = Object.keys(PEOPLE).map((p) =>
      [`dn: ${personDn(p)}`, ...Object.entries(personAttributes(p)).map(([k, v]) => `${k}: ${v}`)].join("\n"),
    );
    const groups = ["sales", "eng"].map((g) =>
      [
        `dn: cn=${g},${GROUPS_OU}`,
        "objectClass: groupOfNames",
        `cn: ${g}`,
        ...membersOf(g).map((p) => `member: ${personDn(p)}`),
      ].join("\n"),
    );
    slapd = await startSlapd([...people, ...groups].join("\n\n") + "\n");
  }, 60_000);
  afterAll(async () => {
    await slapd?.remove();
  });
  const asRoot = async (fn: (c: Client) => Promise<void>): Promise<void> => {
    const client = new Client({ url: slapd.url });
    await client.bind(ROOT_DN, ROOT_PASSWORD);
    try {
      await fn(client);
    } finally {
      await client.unbind();
    }
  };
  const member = (operation: "add" | "delete"): Change =>
    new Change({ operation, modification: new Attribute({ type: "member", values: [personDn(LEAVER)] }) });
  matrix(() => ({
    env: { USERSYNC_LDAP_PASSWORD: READER_PASSWORD },
    async section() {
      return {
        source: {
          type: "ldap",
          ldap: {
            url: slapd.url,
            bindDn: READER_DN,
            baseDn: PEOPLE_OU,
            groupBaseDn: GROUPS_OU,
            attributes: { email: "{mail}", id: "{uid}", authenticationId: "{uid}" },
            groups: [
              { cn: "sales", ...SALES_ACCESS },
              { cn: "eng", ...ENG_ACCESS },
            ],
          },
        },
        identity: { default: "external" },
      };
    },
    async remove() {
      await asRoot(async (c) => {
        await c.modify(`cn=eng,${GROUPS_OU}`, [member("delete")]);
        await c.del(personDn(LEAVER));
      });
    },
    async restore() {
      await asRoot(async (c) => {
        await c.add(personDn(LEAVER), personAttributes(LEAVER));
        await c.modify(`cn=eng,${GROUPS_OU}`, [member("add")]);
      });
    },
  }));
});

// ---------------------------------------------------------------------------------------- Entra

describe("matrix: Entra ID (Graph stand-in)", () => {
  const id = (p: string): string => `2b000000-0000-4000-8000-00000000000${p.slice(1)}`;
  const groupId = {
    sales: "3c000000-0000-4000-8000-000000000001",
    eng: "3c000000-0000-4000-8000-000000000002",
  };
  let graph: GraphStandIn;
  const tenant = (): GraphTenant => {
    const base = smallTenant();
    return {
      ...base,
      users: Object.keys(PEOPLE).map((p) => ({
        id: id(p),
        userPrincipalName: `${p}@contoso.onmicrosoft.com`,
        mail: email(p),
        displayName: p,
        givenName: p,
        surname: "Example",
        accountEnabled: true,
        userType: "Member",
      })),
      groups: (["sales", "eng"] as const).map((g) => ({
        id: groupId[g],
        displayName: g === "sales" ? "Sales" : "Eng",
        mailNickname: g,
        securityEnabled: true,
        groupTypes: [],
        members: membersOf(g).map(id),
      })),
      others: [],
    };
  };
  beforeAll(async () => {
    graph = await startStandIn({ tenant: tenant() });
  });
  afterAll(async () => {
    await graph?.close();
  });
  const eng = () => graph.directory.tenant.groups.find((g) => g.id === groupId.eng)!;
  matrix(() => ({
    signIn: { oauthIssuerLocation: "https://login.microsoftonline.com/t/v2.0", oauthSubjectIdClaim: "oid" },
    env: { USERSYNC_ENTRA_CLIENT_SECRET: SECRET },
    async section() {
      return {
        source: {
          type: "entra",
          entra: entraSettings(graph.url, {
            groups: [
              { displayName: "Sales", ...SALES_ACCESS },
              { displayName: "Eng", ...ENG_ACCESS },
            ],
          }),
        },
      };
    },
    async remove() {
      eng().members = eng().members.filter((m) => m !== id(LEAVER));
    },
    async restore() {
      if (!eng().members.includes(id(LEAVER))) eng().members.push(id(LEAVER));
      const user = graph.directory.tenant.users.find((u) => u.id === id(LEAVER));
      if (user) user.accountEnabled = true;
    },
    async disable() {
      graph.directory.tenant.users.find((u) => u.id === id(LEAVER))!.accountEnabled = false;
    },
  }));
});

// ---------------------------------------------------------------------------------------- Okta

describe("matrix: Okta (Okta stand-in)", () => {
  const n = (p: string): number => Number(p.slice(1));
  const groups: OktaGroup[] = (["sales", "eng"] as const).map((g, i) => ({
    id: oktaGroupId(i),
    type: "OKTA_GROUP",
    profile: { name: g, description: g },
    members: membersOf(g).map((p) => oktaUserId(n(p))),
  }));
  const eng = groups[1]!;
  let f: OktaFixture;
  beforeAll(async () => {
    f = await startOkta({
      users: Object.keys(PEOPLE).map((p) => ({
        id: oktaUserId(n(p)),
        status: "ACTIVE",
        profile: { login: email(p), email: email(p), firstName: p, lastName: "Example" },
      })),
      groups,
    });
  }, 30_000);
  afterAll(async () => {
    await f?.okta.close();
  });
  matrix(() => ({
    signIn: { oauthIssuerLocation: f.okta.url },
    env: {},
    async section(dir) {
      return {
        source: {
          type: "okta",
          okta: await serviceAppSource(f, dir, {
            groups: [
              { groupName: "sales", ...SALES_ACCESS },
              { groupName: "eng", ...ENG_ACCESS },
            ],
          }),
        },
      };
    },
    async remove() {
      eng.members = eng.members.filter((m) => m !== oktaUserId(n(LEAVER)));
    },
    async restore() {
      if (!eng.members.includes(oktaUserId(n(LEAVER)))) eng.members.push(oktaUserId(n(LEAVER)));
    },
  }));
});

// ---------------------------------------------------------------------------------------- Google

describe("matrix: Google Workspace (Google stand-in)", () => {
  const id = (p: string): string => String(130000000000000000000n + BigInt(p.slice(1)));
  const groups: GoogleGroup[] = (["sales", "eng"] as const).map((g) => ({
    id: `04${g}`,
    email: `${g}@${DOMAIN}`,
    name: g,
    members: membersOf(g).map((p) => ({ id: id(p), type: "USER" as const })),
  }));
  const eng = groups[1]!;
  let google: GoogleStandIn;
  beforeAll(async () => {
    google = await startGoogle({
      users: [
        ...Object.keys(PEOPLE).map((p) => ({
          id: id(p),
          primaryEmail: email(p),
          name: { givenName: p, familyName: "Example", fullName: `${p} Example` },
        })),
        // The admin the service account acts as (source.google.subject); in no group.
        {
          id: id("p9"),
          primaryEmail: ADMIN,
          isAdmin: true,
          name: { givenName: "Admin", familyName: "Example" },
        },
      ],
      groups,
    });
  });
  afterAll(async () => {
    await google?.close();
  });
  matrix(() => ({
    signIn: { oauthIssuerLocation: "https://accounts.google.com", oauthSubjectIdClaim: "sub" },
    env: {},
    async section(dir) {
      const key = await writeKey(dir, google.url);
      return {
        source: {
          type: "google",
          google: googleSettings(google.url, key, {
            groups: [
              { email: `sales@${DOMAIN}`, ...SALES_ACCESS },
              { email: `eng@${DOMAIN}`, ...ENG_ACCESS },
            ],
          }),
        },
      };
    },
    async remove() {
      eng.members = eng.members.filter((m) => m.id !== id(LEAVER));
    },
    async restore() {
      if (!eng.members.some((m) => m.id === id(LEAVER))) eng.members.push({ id: id(LEAVER), type: "USER" });
    },
  }));
});
