/**
 * `source.type: okta` (docs/okta.md): the people and groups of an Okta organization as the desired
 * state, read with the shared directory pieces (DirectoryHttp, pages, Tally) and Okta's own pacer,
 * which leaves the configured headroom of the customer's shared rate limit. Groups first (the
 * rules), then every picked group's members; the evidence lists each listing and the members per
 * group (`okta:<group id>`), checked against the last successful run.
 */
import type { OktaConfig } from "./schema.js";
import { checkGroups, checkUsers } from "../../checks.js";
import { ProblemList, sortProblems } from "../../problems.js";
import type { RecordContext } from "../../records.js";
import type { SourceContext, SourceResult } from "../contract.js";
import { DirectoryHttp } from "../directory-http.js";
import { userGroups, type PickedGroup } from "../picked-groups.js";
import { SourceIncompleteError } from "../errors.js";
import type { DesiredUser, Evidence, ReadTally } from "../../types.js";
import type { OktaGroupJson, OktaUserJson } from "./api.js";
import { oktaAuthorizer } from "./credentials.js";
import { describeRule, OKTA_GROUPS, pickOktaGroups, type OktaRule } from "./groups.js";
import { OktaPacer } from "./pacer.js";
import { readMembers, toDesiredUser, type Member } from "./people.js";
import { oktaSignIn } from "./subject.js";

export function oktaHttp(
  config: OktaConfig,
  ctx: SourceContext,
  authorize: () => Promise<string>,
  renew?: (refused: string) => Promise<void>,
) {
  const maxWaitMs = config.maxWaitSeconds * 1000;
  const pacer = new OktaPacer({
    headroom: Number(config.headroom.slice(0, -1)) / 100,
    maxWaitMs,
    now: Date.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    tooLong: (ms) =>
      new SourceIncompleteError({
        read: `Okta ${config.orgUrl}`,
        reason: `leaving ${config.headroom} of each rate-limit window to the organization's other integrations needs ${Math.round(ms / 1000)} s of pauses, past source.okta.maxWaitSeconds (${config.maxWaitSeconds}); a later run, a lower headroom or a higher maxWaitSeconds may succeed`,
      }),
    onPause: (ms, why) =>
      ctx.logger.info({ directory: "Okta", pauseMs: ms }, `Okta: ${why}; pausing until the window resets`),
  });
  const http = new DirectoryHttp({
    directory: "Okta",
    origin: config.orgUrl,
    authorize,
    ...(renew ? { renew } : {}),
    concurrency: config.concurrency,
    timeoutMs: config.timeoutMs,
    maxThrottleWaitMs: maxWaitMs,
    pacer,
    logger: ctx.logger,
  });
  return { http, pacer };
}

/** What a whole read of the picked groups gives: the groups, their members, the listings. */
export interface OktaRead {
  picked: PickedGroup<OktaGroupJson, OktaRule>[];
  members: Map<string, Member>;
  sizes: Map<string, number>;
  reads: ReadTally[];
  /** A partial build (BuildInput.only): `members` are those people only; their lines in a whole build. */
  lineOf?: ReadonlyMap<string, number>;
}

/** The picked groups and every member of them, each listing followed to its end. */
export async function readOktaGroups(http: DirectoryHttp, config: OktaConfig): Promise<OktaRead> {
  const { picked, reads: groupReads } = await pickOktaGroups({ http, config });
  const labels = picked.map((p) => ({
    id: p.group.id,
    label: JSON.stringify(String(p.group.profile.name ?? p.group.id)),
  }));
  const { members, reads, sizes } = await readMembers({ http, orgUrl: config.orgUrl, groups: labels });
  return { picked, members, sizes, reads: [...groupReads, ...reads] };
}

/** The desired state of a read (whole, or a picture's after changes): the same rules either way. */
export function oktaResult(config: OktaConfig, ctx: SourceContext, read: OktaRead): SourceResult {
  const { picked, members, sizes } = read;
  const problems = new ProblemList();
  const rc: RecordContext = {
    problems,
    defaultIdentity: ctx.defaultIdentity,
    passwordWarned: { value: false },
  };
  const { groups, userGroupOf } = userGroups(picked, OKTA_GROUPS, rc);
  const users: DesiredUser[] = [];
  const oktaOf = new Map<string, OktaUserJson>();
  const sorted = [...members.values()].sort((a, b) => (a.user.id < b.user.id ? -1 : 1));
  sorted.forEach((member, i) => {
    const groupIds = [...member.groups].flatMap((id) => userGroupOf.get(id) ?? []);
    const line = read.lineOf?.get(member.user.id) ?? i + 1;
    const user = toDesiredUser({ member, line, config, groupIds, ctx: rc });
    if (user === undefined) return;
    users.push(user);
    oktaOf.set(user.id, member.user);
  });
  checkUsers(users, problems);
  checkGroups(groups, users, problems);
  const state = { users, groups, files: [config.orgUrl] };
  const evidence: Evidence = {
    kind: "okta",
    source: config.orgUrl,
    scope: config.groups.map(describeRule),
    reads: read.reads,
    skipped: [],
    groupSizes: Object.fromEntries(picked.map((p) => [`okta:${p.group.id}`, sizes.get(p.group.id) ?? 0])),
  };
  return {
    state,
    problems: sortProblems(problems.items, [config.orgUrl]),
    evidence,
    // Okta signs people in as `sub` = their Okta id unless the organization names another claim.
    ...(config.identity === "external" ? { signIn: oktaSignIn(oktaOf) } : {}),
  };
}

/** The Okta HTTP client of a run, signed in (the token or the service app's key). */
export async function connectOkta(config: OktaConfig, ctx: SourceContext, scopes?: readonly string[]) {
  const auth = await oktaAuthorizer({
    config,
    env: ctx.env,
    timeoutMs: config.timeoutMs,
    ...(scopes ? { scopes } : {}),
  });
  if (auth.warning) ctx.logger.warn(auth.warning);
  const renew = auth.renew?.bind(auth);
  return oktaHttp(config, ctx, () => auth.authorization(), renew);
}

export async function readOktaDesired(config: OktaConfig, ctx: SourceContext): Promise<SourceResult> {
  const { http, pacer } = await connectOkta(config, ctx);
  try {
    const result = oktaResult(config, ctx, await readOktaGroups(http, config));
    ctx.logger.debug({ directory: "Okta", requests: http.requests, ...pacer.stats }, "Okta read");
    return result;
  } finally {
    await http.close();
  }
}
