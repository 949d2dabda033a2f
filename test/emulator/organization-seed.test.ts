/**
 * The seed's organization (issue 38, item 7): `organization:` (its oauthSubjectIdClaim, issuer and
 * identity provider), `identityProviders:` and `organizationSettings:` are served over a socket in
 * the official `metadata-json-api` shapes, read by usersync's own sign-in reader, kept across a
 * restart with `--data` (read from the seed at every start), and a seed that cannot be served
 * stops the emulator before it listens, naming the file and the field.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSeedFile, startEmulator, type EmulatorHandle } from "../../src/emulator/index.js";
import { signInOf } from "../../src/service/sign-in.js";
import { withTempDir } from "../e2e/run-cli.js";
import { validateAgainst } from "../helpers/openapi.js";
import { call } from "./http.js";

const SEED = `
organization:
  oauthIssuerLocation: https://login.example.org/tenant/v2.0
  oauthSubjectIdClaim: sub
  identityProvider: contoso
identityProviders:
  - id: contoso
    idpType: CUSTOM_IDP
    identifiers: [contoso.example]
    oauthIssuerLocation: https://login.example.org/contoso/v2.0
    oauthClientId: usersync-rehearsal
    oauthSubjectIdClaim: oid
  - id: partners
    idpType: CUSTOM_IDP
    identifiers: [partner.example]
    oauthIssuerLocation: https://partners.example.org
organizationSettings:
  - { id: jit, type: JIT_PROVISIONING, content: { enabled: true, userGroupsDefaults: [everyone] } }
groups:
  - { id: everyone, name: Everyone }
`;

async function withSeed<T>(
  text: string,
  fn: (e: EmulatorHandle, dir: string) => Promise<T>,
  persist = false,
): Promise<T> {
  return withTempDir(async (dir) => {
    const file = join(dir, "organization.yaml");
    await writeFile(file, text);
    const e = await startEmulator({
      seed: await loadSeedFile(file),
      ...(persist ? { persistPath: join(dir, "org.json") } : {}),
    });
    try {
      return await fn(e, dir);
    } finally {
      await e.close();
    }
  });
}

describe("the seed's organization", () => {
  it("serves the organization with its identity provider, as the official spec shapes it; usersync reads the provider's claim", async () => {
    await withSeed(SEED, async (e) => {
      const moved = await fetch(`${e.url}/api/v1/entities/organization`, {
        headers: { Authorization: "Bearer dev-token" },
        redirect: "manual",
      });
      expect(moved.status).toBe(302);
      const org = await call(
        e,
        "GET",
        `${new URL(moved.headers.get("location")!).pathname}?include=identityProvider`,
      );
      expect(org.status).toBe(200);
      expect(validateAgainst("metadata", "JsonApiOrganizationOutDocument", org.json)).toEqual([]);
      expect(org.json.data.attributes.oauthSubjectIdClaim).toBe("sub");
      expect(org.json.data.relationships.identityProvider.data).toEqual({
        id: "contoso",
        type: "identityProvider",
      });
      expect(org.json.included[0].attributes.identifiers).toEqual(["contoso.example"]);
      // The identity provider wins over the organization's own claim, as in the service.
      expect(signInOf(org.json)).toEqual({
        kind: "oidc",
        claim: "oid",
        issuer: "https://login.example.org/contoso/v2.0",
        from: "identityProvider",
      });
    });
  });

  it("lists its identity providers and serves each one; an unknown one is 404", async () => {
    await withSeed(SEED, async (e) => {
      const list = await call(e, "GET", "/api/v1/entities/identityProviders");
      expect(list.status).toBe(200);
      expect(validateAgainst("metadata", "JsonApiIdentityProviderOutList", list.json)).toEqual([]);
      expect(list.json.data.map((p: { id: string }) => p.id)).toEqual(["contoso", "partners"]);
      const one = await call(e, "GET", "/api/v1/entities/identityProviders/partners");
      expect(validateAgainst("metadata", "JsonApiIdentityProviderOutDocument", one.json)).toEqual([]);
      expect(one.json.data.attributes.oauthIssuerLocation).toBe("https://partners.example.org");
      expect((await call(e, "GET", "/api/v1/entities/identityProviders/nobody")).status).toBe(404);
      expect((await call(e, "DELETE", "/api/v1/entities/identityProviders/partners")).status).toBe(405);
    });
  });

  it("the organization's own claim without an identity provider; its settings", async () => {
    const seed = `organization: { oauthIssuerLocation: "https://okta.example.org", oauthSubjectIdClaim: email }\norganizationSettings:\n  - { id: jit, type: JIT_PROVISIONING, content: { enabled: true } }\n`;
    await withSeed(seed, async (e) => {
      const org = await call(
        e,
        "GET",
        "/api/v1/entities/admin/organizations/emulated-org?include=identityProvider",
      );
      expect(signInOf(org.json)).toEqual({
        kind: "oidc",
        claim: "email",
        issuer: "https://okta.example.org",
        from: "organization",
      });
      expect((await call(e, "GET", "/api/v1/entities/identityProviders")).json.data).toEqual([]);
      const settings = await call(e, "GET", "/api/v1/entities/organizationSettings");
      expect(settings.json.data.map((s: { attributes: { type: string } }) => s.attributes.type)).toEqual([
        "JIT_PROVISIONING",
      ]);
    });
  });

  it("is read from the seed at every start, also when a persisted store wins over the seed's people", async () => {
    await withSeed(
      SEED,
      async (_e, dir) => {
        const again = await startEmulator({
          seed: await loadSeedFile(join(dir, "organization.yaml")),
          persistPath: join(dir, "org.json"),
        });
        try {
          const org = await call(
            again,
            "GET",
            "/api/v1/entities/admin/organizations/emulated-org?include=identityProvider",
          );
          expect(signInOf(org.json)).toMatchObject({ claim: "oid", from: "identityProvider" });
        } finally {
          await again.close();
        }
      },
      true,
    );
  });

  it.each([
    [
      "organization: { identityProvider: okta }\n",
      "organization.identityProvider names okta, which identityProviders does not list",
    ],
    [
      "organization: { oauthSubjectIdClaim: 7 }\n",
      "organization.oauthSubjectIdClaim must be a non-empty string",
    ],
    ["organization: { claim: oid }\n", "organization.claim is not a known key"],
    [
      "identityProviders:\n  - { id: a, idpType: SAML }\n",
      "identityProviders[0].idpType must be one of MANAGED_IDP",
    ],
    ["identityProviders:\n  - { id: a }\n  - { id: a }\n", "identityProviders has a twice"],
    [
      "organizationSettings:\n  - { id: jit, type: JIT_PROVISIONING }\n",
      "organizationSettings[0].content must be a mapping",
    ],
    ["identityProviders: { id: a }\n", "identityProviders must be a list"],
  ])("a seed that cannot be served is refused, naming the file and the field: %j", async (text, words) => {
    await withTempDir(async (dir) => {
      const file = join(dir, "bad.yaml");
      await writeFile(file, text);
      await expect(loadSeedFile(file)).rejects.toThrow(`${file}: `);
      await expect(loadSeedFile(file)).rejects.toThrow(words);
    });
  });
});
