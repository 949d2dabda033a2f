/**
 * DESIGN section 4: one client module over undici for the service (its transport, and the exchange
 * of one request, which reads the whole answer within its deadline and size cap). The only other
 * importer is the small HTTP helper of the other destinations (src/outputs/http.ts): the
 * in-cluster Kubernetes API (passwords to Secrets) and a Prometheus Pushgateway; and the one
 * HTTP client of the directory sources (src/desired/sources/directory-http.ts: Graph, Okta), whose
 * reads are GETs with their own throttling rules; beside it, the sources' one way to their
 * identity platform outside the directory's API, with the CA the source trusts
 * (src/desired/sources/identity-platform.ts: the fetch google-auth-library is given, for the
 * key's token_uri and the extra CA, and Entra's one GET of the tenant's discovery document). No
 * directory's own folder imports undici. Anything new that imports undici must be named here on
 * purpose.
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
  it("only src/service/transport.ts and exchange.ts (and the helper of the Kubernetes and Pushgateway clients, the directory sources' client and their identity-platform helper) import undici", () => {
    const importers = sources("src").filter((f) =>
      /from\s+["']undici["']|import\(\s*["']undici["']\s*\)|require\(\s*["']undici["']/.test(
        readFileSync(f, "utf8"),
      ),
    );
    expect(importers.sort()).toEqual([
      join("src", "desired", "sources", "directory-http.ts"),
      join("src", "desired", "sources", "identity-platform.ts"),
      join("src", "outputs", "http.ts"),
      join("src", "service", "exchange.ts"),
      join("src", "service", "transport.ts"),
    ]);
  });
});
