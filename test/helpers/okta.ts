/**
 * An Okta stand-in (src/emulator/okta) with a service app whose private key is written to a
 * file, as a test or a rehearsal would configure usersync: `source.okta` blocks for the app and
 * for an SSWS token.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exportJWK, exportPKCS8, generateKeyPair } from "jose";
import { startOktaStandIn, type OktaStandIn } from "../../src/emulator/okta/server.js";
import type { OktaStandInOptions, OktaUser } from "../../src/emulator/okta/types.js";

export const OKTA_CLIENT_ID = "0oa1usersync4stand9in";
export const OKTA_KEY_ID = "usersync-test-key";
export const OKTA_API_TOKEN = "00okta-stand-in-ssws-token-7c1";

/** What a change feed reads: people, groups and the System Log. */
export const CHANGES_SCOPES = ["okta.users.read", "okta.groups.read", "okta.logs.read"];

/** An active Okta user `<name>@example.org` (its login too), first name `name`, last name Example. */
export function anOktaUser(id: string, name: string): OktaUser {
  return {
    id,
    status: "ACTIVE",
    profile: {
      login: `${name}@example.org`,
      email: `${name}@example.org`,
      firstName: name,
      lastName: "Example",
    },
  };
}

export interface OktaFixture {
  okta: OktaStandIn;
  /** PKCS#8 PEM of the app's private key. */
  privateKeyPem: string;
}

export async function startOkta(
  options: Omit<OktaStandInOptions, "serviceApps" | "apiTokens"> & { scopes?: string[] },
): Promise<OktaFixture> {
  const keys = await generateKeyPair("RS256", { extractable: true });
  const publicJwk = { ...(await exportJWK(keys.publicKey)), alg: "RS256", kid: OKTA_KEY_ID };
  const okta = await startOktaStandIn({
    ...options,
    apiTokens: [OKTA_API_TOKEN],
    serviceApps: [
      {
        clientId: OKTA_CLIENT_ID,
        publicJwk,
        scopes: options.scopes ?? ["okta.users.read", "okta.groups.read"],
      },
    ],
  });
  return { okta, privateKeyPem: await exportPKCS8(keys.privateKey) };
}

/** `source.okta` for the service app, its key in `dir/okta-key.pem`. */
export async function serviceAppSource(f: OktaFixture, dir: string, extra: Record<string, unknown> = {}) {
  const privateKeyFile = join(dir, "okta-key.pem");
  await writeFile(privateKeyFile, f.privateKeyPem, { mode: 0o600 });
  return {
    orgUrl: f.okta.url,
    credentials: { clientId: OKTA_CLIENT_ID, keyId: OKTA_KEY_ID, privateKeyFile },
    ...extra,
  };
}
