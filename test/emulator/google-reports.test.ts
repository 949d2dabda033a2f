/**
 * The Google stand-in's Reports API admin activity over a real socket (HTTPS, a token from the
 * real google-auth-library): changes made on the stand-in are reported after its reporting lag,
 * newest first, paged by nextPageToken, filtered by eventName, a looping page token on demand;
 * the scope admin.reports.audit.readonly is required; a start time in the future is refused. Expectations from the Reports
 * API's discovery document and the Admin Audit Activity Events reference.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTempDir } from "../e2e/run-cli.js";
import { createLogger } from "../../src/logging.js";
import { googleSource } from "../../src/desired/sources/google/schema.js";
import { DirectoryHttp } from "../../src/desired/sources/directory-http.js";
import { DirectoryHttpError } from "../../src/desired/sources/errors.js";
import { readSourceCa } from "../../src/desired/sources/identity-platform.js";
import {
  GOOGLE_REPORTS_SCOPE,
  GOOGLE_SCOPES,
  googleAuthorizer,
} from "../../src/desired/sources/google/credentials.js";
import type { GoogleStandIn } from "../../src/emulator/google/server.js";
import {
  ADMIN_ROLE_SA,
  CA_FILE,
  DOMAIN,
  G,
  U,
  googleSettings,
  startGoogle,
  writeKey,
} from "../helpers/google.js";

const logger = createLogger({ level: "silent", format: "json" });
const LAG_MS = 1500;
let google: GoogleStandIn;
beforeAll(async () => {
  google = await startGoogle({ reportLagMs: LAG_MS });
});
afterAll(() => google.close());

type Activities = {
  kind: string;
  items: {
    id: { applicationName: string };
    events: { type: string; name: string; parameters: { name: string; value: string }[] }[];
  }[];
  nextPageToken?: string;
};

async function client(dir: string, scopes: readonly string[]) {
  const key = await writeKey(dir, google.url, ADMIN_ROLE_SA);
  const config = googleSource.parse({ ...googleSettings(google.url, key), subject: undefined });
  const ca = await readSourceCa(CA_FILE, "caFile");
  const auth = await googleAuthorizer({ config, env: {}, ca, scopes });
  return new DirectoryHttp({
    directory: "Google",
    origin: google.url,
    authorize: () => auth.authorization(),
    concurrency: 1,
    timeoutMs: 10_000,
    maxThrottleWaitMs: 1000,
    logger,
    ...(ca ? { ca } : {}),
  });
}

describe("Reports API admin activity on the Google stand-in", () => {
  it("reports a suspension and a membership removal after its lag, newest first, paged and filtered", async () => {
    await withTempDir(async (dir) => {
      const http = await client(dir, [...GOOGLE_SCOPES, GOOGLE_REPORTS_SCOPE]);
      const start = new Date(Date.now() - 1000).toISOString();
      const list = async (extra = "") =>
        (
          await http.get<Activities>(
            `${google.url}/admin/reports/v1/activity/users/all/applications/admin?startTime=${start}${extra}`,
            "admin activity",
          )
        ).body;
      google.changes.suspend(U.ken);
      google.changes.member(G.analytics, U.grace, false);
      expect(google.directory.users.get(U.ken)?.suspended).toBe(true);
      expect((await list()).items).toEqual([]); // not reported yet: the lag
      await new Promise((r) => setTimeout(r, LAG_MS + 200));
      const all = await list();
      expect(all.kind).toBe("admin#reports#activities");
      expect(all.items.map((a) => [a.id.applicationName, a.events[0]!.type, a.events[0]!.name])).toEqual([
        ["admin", "GROUP_SETTINGS", "REMOVE_GROUP_MEMBER"],
        ["admin", "USER_SETTINGS", "SUSPEND_USER"],
      ]);
      expect(all.items[0]!.events[0]!.parameters).toEqual([
        { name: "USER_EMAIL", value: `Grace@${DOMAIN}` },
        { name: "GROUP_EMAIL", value: `analytics-team@${DOMAIN}` },
      ]);
      const first = await list("&maxResults=1");
      expect(first.items).toHaveLength(1);
      const second = await list(`&maxResults=1&pageToken=${first.nextPageToken ?? ""}`);
      expect(second.items[0]!.events[0]!.name).toBe("SUSPEND_USER");
      expect(second.nextPageToken).toBeUndefined();
      expect((await list("&eventName=SUSPEND_USER")).items).toHaveLength(1);
      // A looping report on demand: a later page's token is the one just used; a first page's
      // token serves that first page again.
      google.faults.push({ match: /\/admin\/reports\/.*pageToken=/, kind: "repeat-token", times: 1 });
      const token = first.nextPageToken ?? "";
      expect((await list(`&maxResults=1&pageToken=${token}`)).nextPageToken).toBe(token);
      google.faults.push({ match: /\/admin\/reports\//, kind: "repeat-token", times: 1 });
      const again = (await list("&maxResults=1")).nextPageToken ?? "";
      const served = await list(`&maxResults=1&pageToken=${again}`);
      expect(served.items[0]!.events[0]!.name).toBe("REMOVE_GROUP_MEMBER");
      await http.close();
    });
  }, 60_000);

  it("refuses a token without the Reports scope (403) and a start time in the future (400)", async () => {
    await withTempDir(async (dir) => {
      const directoryOnly = await client(dir, GOOGLE_SCOPES);
      const url = `${google.url}/admin/reports/v1/activity/users/all/applications/admin`;
      const status = async (h: DirectoryHttp, u: string) => {
        try {
          await h.get(u, "admin activity");
          return 200;
        } catch (err) {
          return err instanceof DirectoryHttpError ? err.status : -1;
        }
      };
      expect(await status(directoryOnly, url)).toBe(403);
      const reports = await client(dir, [GOOGLE_REPORTS_SCOPE]);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      expect(await status(reports, `${url}?startTime=${future}`)).toBe(400);
      await Promise.all([directoryOnly.close(), reports.close()]);
    });
  }, 60_000);
});
