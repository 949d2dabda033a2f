/**
 * Who signs in as whom: the organization's `oauthSubjectIdClaim` (or its identityProvider's),
 * read from the emulator over a real socket, in the official shapes (metadata-json-api).
 */
import { describe, expect, it } from "vitest";
import type { EmulatorSignIn } from "../../src/emulator/types.js";
import { withEmulatorClient } from "../helpers/env.js";

async function signInWith(signIn: EmulatorSignIn | undefined) {
  const env = await withEmulatorClient({ emulator: { profile: "v1", ...(signIn ? { signIn } : {}) } });
  try {
    return {
      signIn: await env.client.signIn?.(),
      log: env.emulator.requestLog().map((e) => `${e.method} ${e.url} ${e.status}`),
    };
  } finally {
    await env.close();
  }
}

describe("organization sign-in", () => {
  it("is the built-in identity provider when the organization names no issuer", async () => {
    const r = await signInWith(undefined);
    // The organization read names its id too (the review records it in its snapshot).
    expect(r.signIn).toEqual({ kind: "builtin", organizationId: "emulated-org" });
    expect(r.log.slice(-1)).toEqual([
      "GET /api/v1/entities/admin/organizations/emulated-org?include=identityProvider 200",
    ]);
  });

  it("asks for the profile once: the connection's answer names the organization", async () => {
    const r = await signInWith(undefined);
    // The connection (target.apiProfile auto) read the profile; the sign-in reads the organization only.
    expect(r.log.filter((l) => l.startsWith("GET /api/v1/profile "))).toEqual(["GET /api/v1/profile 200"]);
  });

  it("reads the organization's claim, and defaults it to sub", async () => {
    const issuer = "https://login.microsoftonline.com/t1/v2.0";
    expect((await signInWith({ oauthIssuerLocation: issuer, oauthSubjectIdClaim: "oid" })).signIn).toEqual({
      kind: "oidc",
      claim: "oid",
      issuer,
      from: "organization",
      organizationId: "emulated-org",
    });
    expect((await signInWith({ oauthIssuerLocation: issuer })).signIn).toMatchObject({ claim: "sub" });
  });

  it("lets the organization's identityProvider win; a DEX_IDP is the built-in one", async () => {
    const r = await signInWith({
      oauthIssuerLocation: "https://other.example.com",
      oauthSubjectIdClaim: "sub",
      identityProvider: {
        id: "entra",
        idpType: "CUSTOM_IDP",
        oauthIssuerLocation: "https://x",
        oauthSubjectIdClaim: "email",
      },
    });
    expect(r.signIn).toEqual({
      kind: "oidc",
      claim: "email",
      issuer: "https://x",
      from: "identityProvider",
      organizationId: "emulated-org",
    });
    expect((await signInWith({ identityProvider: { id: "dex", idpType: "DEX_IDP" } })).signIn).toEqual({
      kind: "builtin",
      organizationId: "emulated-org",
    });
  });

  it("answers the current-organization path with a redirect to the entity", async () => {
    const env = await withEmulatorClient({ emulator: { profile: "v1" } });
    try {
      const res = await fetch(`${env.emulator.url}/api/v1/entities/organization`, {
        headers: { authorization: "Bearer test-token-5f2c9a" },
        redirect: "manual",
      });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(
        `${env.emulator.url}/api/v1/entities/admin/organizations/emulated-org`,
      );
    } finally {
      await env.close();
    }
  });
});
