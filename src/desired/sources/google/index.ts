/**
 * `source.type: google` (docs/google.md): the people and groups of a Google Workspace customer as
 * the desired state, read with the shared directory pieces (DirectoryHttp, pages, Tally): the
 * token from google-auth-library (credentials.ts), the picked groups (groups.ts), each group's
 * members and the customer's users (people.ts). Quota errors pause every request of the run
 * (DirectoryHttp, `isThrottled`); the evidence lists each listing, what was skipped and the
 * people per group (`google:<group id>`), checked against the last successful run.
 */
import type { GoogleConfig, GoogleRule } from "./schema.js";
import { checkGroups, checkUsers } from "../../checks.js";
import { ProblemList, sortProblems } from "../../problems.js";
import type { RecordContext } from "../../records.js";
import type { DesiredUser, Evidence, ReadTally } from "../../types.js";
import { SkipCounter, type SourceContext, type SourceResult } from "../contract.js";
import { DirectoryHttp } from "../directory-http.js";
import { userGroups, type PickedGroup } from "../picked-groups.js";
import { readSourceCa } from "../identity-platform.js";
import { GOOGLE, isQuotaAnswer, type GoogleGroupJson, type GoogleUserJson } from "./api.js";
import { googleAuthorizer, type GoogleAuthorizer } from "./credentials.js";
import { describeRule, GOOGLE_GROUPS, pickGoogleGroups } from "./groups.js";
import { readMembers, readUsers, toDesiredUser, type GroupMembers } from "./people.js";
import { googleSignIn } from "./sign-in.js";

/** Where the evidence says the read came from: `customer my_customer` or `domain example.com`. */
export function googleSourceName(config: GoogleConfig): string {
  return config.domain !== undefined
    ? `domain ${config.domain}`
    : `customer ${config.customer ?? "my_customer"}`;
}

function googleHttp(
  config: GoogleConfig,
  ctx: SourceContext,
  auth: GoogleAuthorizer,
  ca: string[] | undefined,
) {
  return new DirectoryHttp({
    directory: GOOGLE,
    origin: config.apiUrl,
    authorize: () => auth.authorization(),
    // A 401 after Google accepted this run's token: one fresh token, that request once more.
    renew: (refused) => auth.renew(refused),
    concurrency: config.concurrency,
    timeoutMs: config.timeoutMs,
    maxThrottleWaitMs: config.maxWaitSeconds * 1000,
    isThrottled: isQuotaAnswer,
    logger: ctx.logger,
    ...(ca !== undefined ? { ca } : {}),
  });
}

/** Each person once, with the user groups of every picked group they are in; outsiders skipped. */
function desiredUsers(o: {
  members: Map<string, GroupMembers>;
  userGroupOf: Map<string, string>;
  directory: Map<string, GoogleUserJson> | undefined;
  config: GoogleConfig;
  rc: RecordContext;
  skipped: SkipCounter;
  lineOf: ReadonlyMap<string, number> | undefined;
}) {
  const groupsOf = new Map<string, string[]>();
  for (const [gid, m] of o.members)
    for (const uid of m.people) {
      if (o.lineOf?.has(uid) === false) continue;
      const list = groupsOf.get(uid) ?? groupsOf.set(uid, []).get(uid)!;
      const ug = o.userGroupOf.get(gid);
      if (ug !== undefined) list.push(ug);
    }
  const users: DesiredUser[] = [];
  const googleOf = new Map<string, GoogleUserJson>();
  [...groupsOf.keys()].sort().forEach((uid, i) => {
    const line = o.lineOf?.get(uid) ?? i + 1;
    const user = o.directory?.get(uid);
    if (user === undefined) {
      o.skipped.skip(`members who are not users of the ${googleSourceName(o.config)} (outside it)`, uid);
      return;
    }
    const d = toDesiredUser({ user, groupIds: groupsOf.get(uid)!, line, config: o.config, ctx: o.rc });
    if (d === undefined) return;
    users.push(d);
    googleOf.set(d.id, user);
  });
  return { users, googleOf };
}

/** What a whole read gives: the picked groups, their members, the customer's users, the listings. */
export interface GoogleRead {
  picked: PickedGroup<GoogleGroupJson, GoogleRule>[];
  members: Map<string, GroupMembers>;
  /** The customer's users by id; undefined when no picked group holds anyone. */
  directory: Map<string, GoogleUserJson> | undefined;
  reads: ReadTally[];
  skipped: SkipCounter;
  /** A partial build (BuildInput.only): only these members are built, with a whole build's lines. */
  lineOf?: ReadonlyMap<string, number>;
}

/** The token (its first one fetched now: a setup mistake stops here, exit 4) and the client. */
export async function connectGoogle(config: GoogleConfig, ctx: SourceContext, scopes?: readonly string[]) {
  // For the API and the token endpoints alike.
  const ca = await readSourceCa(config.caFile, "source.google.caFile");
  const auth = await googleAuthorizer({ config, env: ctx.env, ca, ...(scopes ? { scopes } : {}) });
  await auth.authorization();
  return { http: googleHttp(config, ctx, auth, ca), actor: auth.actor };
}

/** The picked groups, their members (nested groups included) and, when anyone is in them, the users. */
export async function readGoogleGroups(o: {
  http: DirectoryHttp;
  config: GoogleConfig;
  actor: string;
}): Promise<GoogleRead> {
  const { http, config, actor } = o;
  const { picked, reads: groupReads } = await pickGoogleGroups({ http, config, actor });
  const skipped = new SkipCounter();
  const labels = picked.map((p) => ({
    id: p.group.id,
    label: JSON.stringify(p.group.email ?? p.group.id),
  }));
  const { members, reads } = await readMembers({ http, config, groups: labels, skipped, actor });
  const anyone = [...members.values()].some((m) => m.people.length > 0);
  const directory = anyone ? await readUsers({ http, config, actor }) : undefined;
  return {
    picked,
    members,
    directory: directory?.users,
    reads: [...groupReads, ...reads, ...(directory ? [directory.read] : [])],
    skipped,
  };
}

/** The desired state of a read (whole, or a changes-only picture's): pure but for the logger. */
export function googleResult(config: GoogleConfig, ctx: SourceContext, read: GoogleRead): SourceResult {
  const { picked, members, skipped } = read;
  const problems = new ProblemList();
  const rc: RecordContext = {
    problems,
    defaultIdentity: ctx.defaultIdentity,
    passwordWarned: { value: false },
  };
  const { groups, userGroupOf } = userGroups(picked, GOOGLE_GROUPS, rc);
  const { users, googleOf } = desiredUsers({
    members,
    userGroupOf,
    directory: read.directory,
    config,
    rc,
    skipped,
    lineOf: read.lineOf,
  });
  checkUsers(users, problems);
  checkGroups(groups, users, problems);
  const source = `${googleSourceName(config)} at ${config.apiUrl}`;
  const state = { users, groups, files: [source] };
  const evidence: Evidence = {
    kind: "google",
    source,
    scope: config.groups.map(describeRule),
    reads: read.reads,
    skipped: skipped.list(),
    groupSizes: Object.fromEntries(
      picked.map((p) => [`google:${p.group.id}`, members.get(p.group.id)?.people.length ?? 0]),
    ),
  };
  return {
    state,
    problems: sortProblems(problems.items, [source]),
    evidence,
    // Google signs people in as `sub` = their Google id unless the organization names email.
    ...(config.identity === "external" ? { signIn: googleSignIn(googleOf) } : {}),
  };
}

export async function readGoogleDesired(config: GoogleConfig, ctx: SourceContext): Promise<SourceResult> {
  const { http, actor } = await connectGoogle(config, ctx);
  try {
    const read = await readGoogleGroups({ http, config, actor });
    const { requests, throttled, throttledMs } = http;
    ctx.logger.debug({ directory: GOOGLE, requests, throttled, throttledMs }, "Google read");
    return googleResult(config, ctx, read);
  } finally {
    await http.close();
  }
}
