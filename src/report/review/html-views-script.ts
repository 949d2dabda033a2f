/**
 * The access review page's sections (in the page's inline script, after TABLE_SCRIPT): what each
 * table shows of the review model (review/types.ts), and what a row unfolds to: the
 * reason chain (group -> parent groups, hierarchy from a parent workspace, direct) and the
 * filters with their MAQL. Plain browser JavaScript, no backticks or dollar-brace.
 */
export const VIEWS_SCRIPT = String.raw`
var STATUS = { active: "Active login", revoked: "Login revoked", external: "External SSO",
  loginOnly: "Login only, no user", outOfScope: "Out of scope", protected: "Protected" };
var AGREEMENT = { inLine: "Managed, in line", drifted: "Managed, drifted", unmanaged: "Not managed",
  notCompared: "Not compared" };
var FINDING = { revokedWithAccess: "Revoked or absent, still has access", leaverApiTokens: "Revoked or absent, still has API tokens",
  handMadeDirectGrant: "Hand-made direct grant", privilegedOutsideDesired: "Privileged access outside the desired state",
  missingDesiredFilter: "Access without the filter the desired state gives", accessNoGroupExplains: "Access no group explains" };
var CHANGE = { personCame: "Person came", personWent: "Person went", accessGained: "Access gained",
  accessLost: "Access lost", permissionsRaised: "Permissions raised", permissionsLowered: "Permissions lowered",
  filtersWidened: "Filters widened", filtersNarrowed: "Filters narrowed",
  organizationPermissionsRaised: "Organization permissions raised",
  organizationPermissionsLowered: "Organization permissions lowered", statusChanged: "Status changed" };
var STATUS_KIND = { active: "ok", external: "ok", revoked: "bad", loginOnly: "warn", outOfScope: "muted", protected: "info" };
var AGREE_KIND = { inLine: "ok", drifted: "bad", unmanaged: "muted", notCompared: "muted" };

function label(map, v) { return map[v] || v; }
function options(map, present) {
  return Object.keys(map).filter(function (k) { return present.indexOf(k) >= 0; }).map(function (k) { return [k, map[k]]; });
}
function distinct(list) {
  var seen = {}, out = [];
  list.forEach(function (v) { if (!seen[v]) { seen[v] = 1; out.push(v); } });
  return out;
}
function who(p) { return p.displayName || p.email || p.id || p.key; }
function personCell(p) {
  return el("span", { className: "person" }, [el("span", { className: "name", text: who(p) }),
    p.email && p.email !== who(p) ? el("span", { className: "sub", text: p.email }) : null,
    p.id ? el("span", { className: "sub", text: "id " + p.id }) : null]);
}
function holderText(h) { return (h.type === "userGroup" ? "group " : "user ") + h.id; }
function chainNodes(parts, arrowLabel) {
  var out = [];
  parts.forEach(function (part, i) {
    if (i > 0) out.push(el("span", { className: "arrow", "aria-label": arrowLabel, text: " \u2192 " }));
    out.push(el("code", { text: part }));
  });
  return out;
}
function managedBadge(managed) {
  if (managed === undefined) return null;
  return managed ? badge("usersync", "ok") : badge("hand-made", "bad");
}
function reasonSummary(a) {
  return a.reasons.map(function (r) {
    if (r.kind === "direct") return "direct";
    if (r.kind === "group") return "group " + r.groupChain.join(" \u2192 ");
    return "hierarchy from " + r.grantedOn + (r.holder.type === "userGroup" ? " (group " + r.holder.id + ")" : "");
  }).join("; ");
}
function filterSummary(a) {
  if (a.filters.length === 0) return a.unfiltered ? "NONE (others are filtered)" : "none";
  return a.filters.map(function (f) { return f.maql; }).join(" AND ");
}
function reasonItem(r) {
  var parts = [badge(r.kind, r.kind === "direct" ? "info" : "muted"), " "];
  if (r.kind === "group") {
    parts.push("member of ");
    parts = parts.concat(chainNodes(r.groupChain, "whose parent group is"));
    parts.push(r.groupChain.length > 1 ? " (parent groups), which holds " : ", which holds ");
  } else if (r.kind === "hierarchy") {
    parts.push(holderText(r.holder) + (r.groupChain.length ? " (via " + r.groupChain.join(" \u2192 ") + ")" : "") + " holds hierarchy permissions on ");
    parts = parts.concat(chainNodes(r.workspaceChain, "which is the parent of"));
    parts.push(", giving ");
  } else parts.push("the person's own grant: ");
  parts.push(el("strong", { text: r.permissions.join(", ") }));
  if (r.kind !== "hierarchy") parts.push(" on " + r.grantedOn);
  parts.push(" ");
  parts.push(managedBadge(r.managed));
  return el("li", null, parts);
}
function filterItem(f) {
  var whose = f.via === "own" ? "the person's own filter" : "filter of group " + f.holder.id +
    (f.groupChain.length > 1 ? " (via " + f.groupChain.join(" \u2192 ") + ")" : "");
  return el("li", null, [whose, f.fromParent ? " on parent workspace " + f.workspace : "", ": ",
    el("code", { className: "maql", text: f.maql }), " ", f.managed ? badge("usersync", "ok") : badge("hand-made", "bad"),
    f.desired === false ? badge("not in desired state", "warn") : null,
    f.title ? el("span", { className: "sub", text: " " + f.title + " (" + f.id + ")" }) : el("span", { className: "sub", text: " " + f.id })]);
}
function section(title, children) { return el("div", { className: "why" }, [el("h4", { text: title })].concat(children)); }

// An interval between two reviews (review-last-change.ts), said in words; an instant as it is.
function lastChangeText(v) {
  var two = v.split("/");
  return two.length === 2 ? "Changed after the review of " + two[0] + " and by the review of " + two[1] + "." : "Changed " + v + ".";
}
function accessDetail(row) {
  var a = row.a, p = row.p;
  var parts = [section("Why " + who(p) + " reaches " + a.workspace, [el("ul", { className: "chain" }, a.reasons.map(reasonItem))])];
  parts.push(section("Row filters (the service combines them: rows every filter allows)", [a.filters.length
    ? el("ul", { className: "chain" }, a.filters.map(filterItem))
    : el("p", { className: a.unfiltered ? "alarm" : "", text: a.unfiltered ? "No filter applies to this person here, while others on this workspace are filtered: they see every row." : "No filter applies here (nobody on this workspace is filtered)." })]));
  if (a.lastChange) parts.push(section("Last change", [el("p", { text: lastChangeText(a.lastChange) })]));
  if (a.desired) parts.push(section("What the desired state gives", [el("p", { text: "Permissions: " + (a.desired.permissions.join(", ") || "none") }),
    el("p", null, ["Filters: "].concat(a.desired.filters.length ? a.desired.filters.map(function (m) { return el("code", { className: "maql", text: m }); }) : ["none"]))]));
  return el("div", { className: "details" }, parts);
}
function personDetail(p) {
  var parts = [section("Groups", [el("p", null, ["Member of: "].concat(p.groups.length ? chainNodes(p.groups, "and") : ["no group"])),
    el("p", null, ["With parent groups: "].concat(p.allGroups.length ? chainNodes(p.allGroups, "and") : ["none"]))])];
  if (p.organizationReasons.length) parts.push(section("Organization permissions", [el("ul", { className: "chain" }, p.organizationReasons.map(function (r) {
    return el("li", null, [badge(r.kind, "muted"), " " + r.text + " ", el("strong", { text: r.permissions.join(", ") }), " ", managedBadge(r.managed)]);
  }))]));
  if (p.drift.length) parts.push(section("What the plan would change", [el("ul", null, p.drift.map(function (d) { return el("li", { text: d }); }))]));
  var facts = [];
  if (p.protected) facts.push("Protected: " + p.protected);
  if (p.authenticationId) facts.push("authenticationId: " + p.authenticationId);
  if (p.desiredState) facts.push("Desired state: " + p.desiredState);
  if (p.goneSince) facts.push("Left the source: " + p.goneSince + " (first seen gone by usersync)");
  if (p.lastChange) facts.push("Last change: " + lastChangeText(p.lastChange));
  if (facts.length) parts.push(section("Facts", facts.map(function (f) { return el("p", { text: f }); })));
  return el("div", { className: "details" }, parts);
}
`;
