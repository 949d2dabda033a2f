/**
 * DESIGN section 4: one client module over undici for the service (its transport, and the exchange
 * of one request, which reads the whole answer within its deadline and size cap). The only other
 * importer is the small HTTP helper of the other destinations (src/outputs/http.ts): the
 * in-cluster Kubernetes API (passwords to Secrets) and a Prometheus Pushgateway; and the one
 * HTTP client of the directory sources (src/desired/sources/directory-http.ts: Graph, Okta), whose
 * reads are GETs with their own throttling rules. Two credential modules talk to an identity
 * platform outside the directory's API, with the CA the source trusts: Entra's (one GET of the
 * tenant's discovery document, to tell a misspelled tenant from an unreachable platform) and
 * Google's (the fetch google-auth-library is given, for the key's token_uri and the extra CA).
 * Folding both into directory-http.ts is the next step. Anything new that imports undici must be
 * named here on purpose.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

describe("undici boundary", () => {
  it("only src/service/transport.ts and exchange.ts (and the helper of the Kubernetes and Pushgateway clients, and the directory sources' client) import undici", () => {
    const importers = sources("src").filter((f) =>
      /from\s+["']undici["']|import\(\s*["']undici["']\s*\)|require\(\s*["']undici["']/.test(
        readFileSync(f, "utf8"),
      ),
    );
    expect(importers.sort()).toEqual([
      join("src", "desired", "sources", "directory-http.ts"),
      join("src", "desired", "sources", "entra", "credential.ts"),
      join("src", "desired", "sources", "google", "credentials.ts"),
      join("src", "outputs", "http.ts"),
      join("src", "service", "exchange.ts"),
      join("src", "service", "transport.ts"),
    ]);
  });
});
