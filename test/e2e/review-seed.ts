/**
 * The demo organization seeded with every case of the access review (issues 39 and 46), for the
 * review's tests: a revoked leaver still in a group, an SSO contractor, a hierarchy grant, a
 * hand-made direct grant, organization MANAGE, a group's MANAGE on a workspace, hand-made
 * filters, a domain an identity provider claims, a shared authenticationId, an add-on without
 * VIEW, ANALYZE with add-ons.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import type { EmulatorSeed } from "../../src/emulator/index.js";
import { ROOT } from "./run-cli.js";

/** The domains the seeded identity provider claims (issue 46: its logins are external, not revoked). */
export const CLAIMED = ["partner-sso.example"];

export async function demoSeed(): Promise<EmulatorSeed> {
  const seed = parseYaml(
    await readFile(join(ROOT, "fixtures/demo/organization.yaml"), "utf8"),
  ) as EmulatorSeed;
  // The leaver's login was revoked, but their mapping still sits in finance.
  seed.idpUsers = seed.idpUsers!.filter((u) => u.email !== "leaver@demo.example");
  // The SSO contractor the demo file lists, already mapped.
  seed.mappings!.push({
    id: "contractor.sso",
    authenticationId: "okta|00u1a2b3c4d5e6f7",
    email: "contractor@partner-sso.example",
    groups: ["sales"],
  });
  // sales-emea exists with two of its people, who reach sales-emea through sales' hierarchy grant.
  seed.groups!.push({ id: "sales-emea", name: "Sales EMEA", parents: ["sales"] });
  for (const m of seed.mappings!)
    if (m.id === "donald.knuth" || m.id === "radia.perlman") m.groups = ["sales-emea"];
  const ws = (id: string) => seed.workspaces!.find((w) => w.id === id)!;
  ws("sales").permissions = [{ userGroup: "sales", permissions: ["VIEW"], hierarchy: ["VIEW"] }];
  // Made by hand: a direct grant to a managed person, MANAGE for a group below.
  ws("finance").permissions!.push({ user: "ada.lovelace", permissions: ["VIEW", "EXPORT"] });
  ws("sales-emea").permissions = [{ userGroup: "sales-emea", permissions: ["MANAGE"] }];
  seed.organizationPermissions = [
    { user: "admin", permissions: ["MANAGE"] },
    { userGroup: "finance", permissions: ["SELF_CREATE_TOKEN"] },
  ];
  // Issue 46's cases. An identity provider claims partner-sso.example: ext.partner (no built-in
  // login, not in the desired state) signs in through it. zeta.dup shares grace.hopper's
  // authenticationId: only grace.hopper signs in. addon.only holds CREATE_FILTER_VIEW alone on
  // finance (reaches nothing); ext.partner ANALYZE + add-ons on demo (covers VIEW).
  seed.identityProviders = [{ id: "partner-idp", idpType: "CUSTOM_IDP", identifiers: CLAIMED }];
  seed.mappings!.push(
    { id: "ext.partner", authenticationId: "partner|ext", email: "ext@partner-sso.example", groups: [] },
    {
      id: "zeta.dup",
      authenticationId: "auth-grace.hopper",
      email: "zeta@demo.example",
      groups: ["finance"],
    },
    { id: "addon.only", authenticationId: "partner|addon", email: "addon@partner-sso.example", groups: [] },
  );
  ws("finance").permissions!.push({ user: "addon.only", permissions: ["CREATE_FILTER_VIEW"] });
  ws("demo").permissions = [
    ...(ws("demo").permissions ?? []),
    { user: "ext.partner", permissions: ["ANALYZE", "CREATE_AUTOMATION", "USE_AI_ASSISTANT"] },
  ];
  seed.dataFilters = [
    { workspace: "sales", id: "hand-sales-region", maql: '{label/region} = "AMER"', userGroup: "sales" },
    { workspace: "demo", id: "hand-grace", maql: '{label/country} = "US"', user: "grace.hopper" },
  ];
  return seed;
}
