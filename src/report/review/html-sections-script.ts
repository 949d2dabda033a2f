/**
 * The access review page's tables, wired to the data (in the page's inline script, after
 * TABLE_SCRIPT and VIEWS_SCRIPT): findings first, the changes since the last review when there
 * are any, people x workspaces, people, organization permissions, data filters, workspaces.
 * Plain browser JavaScript, no backticks or dollar-brace.
 */
export const SECTIONS_SCRIPT = String.raw`
function host(id) { return document.getElementById(id); }
function col(key, labelText, value, cell, numeric) { return { key: key, label: labelText, value: value, cell: cell, numeric: numeric }; }
var people = data.people;
var byKey = {};
people.forEach(function (p) { byKey[p.key] = p; });
function personOf(k) { return byKey[k] || { key: k }; }
var statuses = distinct(people.map(function (p) { return p.status; }));
var agreements = distinct(people.map(function (p) { return p.agreement; }));

makeTable(host("findings-host"), {
  id: "findings", caption: "Findings: what a reviewer looks at first", rows: data.findings, sort: ["severity", 1],
  empty: "No findings.",
  search: function (f) { var p = personOf(f.person); return [f.detail, f.email, who(p), f.workspace, label(FINDING, f.kind)].join(" "); },
  selects: [{ key: "kind", label: "Finding", options: options(FINDING, distinct(data.findings.map(function (f) { return f.kind; }))), test: function (f, v) { return f.kind === v; } },
    { key: "severity", label: "Severity", options: [["high", "high"], ["medium", "medium"]], test: function (f, v) { return f.severity === v; } }],
  columns: [col("severity", "Severity", function (f) { return f.severity === "high" ? 0 : 1; }, function (f) { return badge(f.severity, f.severity === "high" ? "bad" : "warn"); }),
    col("kind", "Finding", function (f) { return label(FINDING, f.kind); }),
    col("person", "Person", function (f) { return who(personOf(f.person)); }, function (f) { return personCell(personOf(f.person)); }),
    col("workspace", "Workspace", function (f) { return f.workspace || ""; }),
    col("detail", "Detail", function (f) { return f.detail; })]
});

if (data.changes) makeTable(host("changes-host"), {
  id: "changes", caption: "Changes since the review of " + data.changes.since.generatedAt, rows: data.changes.changes,
  empty: "Nothing changed.",
  search: function (c) { return [label(CHANGE, c.kind), c.email, who(personOf(c.person)), c.workspace, (c.before || []).join(" "), (c.after || []).join(" "), c.removedAt, c.runId, c.goneSince].join(" "); },
  selects: [{ key: "kind", label: "Change", options: options(CHANGE, distinct(data.changes.changes.map(function (c) { return c.kind; }))), test: function (c, v) { return c.kind === v; } }],
  columns: [col("kind", "Change", function (c) { return label(CHANGE, c.kind); }),
    col("person", "Person", function (c) { return c.email || c.person; }, function (c) { return personCell(personOf(c.person)); }),
    col("workspace", "Workspace", function (c) { return c.workspace || ""; }),
    col("before", "Before", function (c) { return (c.before || []).join(", "); }),
    col("after", "After", function (c) { return (c.after || []).join(", "); }),
    // Lost access usersync removed: when (state.file's removals) and by which run (its log lines' runId).
    col("removedAt", "Removed by usersync", function (c) { return c.removedAt || ""; }, function (c) {
      return c.removedAt ? el("span", null, [el("span", { className: "removed-at", text: c.removedAt }), el("span", { className: "sub", text: "run " + c.runId })]) : ""; }),
    col("goneSince", "Left the source", function (c) { return c.goneSince || personOf(c.person).goneSince || ""; })]
});

var accessRows = [];
people.forEach(function (p) { p.access.forEach(function (a) { accessRows.push({ p: p, a: a }); }); });
function handMade(row) { return row.a.reasons.some(function (r) { return r.managed === false; }) || row.a.filters.some(function (f) { return !f.managed; }); }
makeTable(host("access-host"), {
  id: "access", caption: "Who reaches which workspace, with which permissions and rows, and why (one row per person and workspace; open a row for the reason chain)",
  rows: accessRows, expand: accessDetail, rowKey: function (r) { return r.p.key + "|" + r.a.workspace; },
  empty: "Nobody reaches any workspace.",
  search: function (r) { return [who(r.p), r.p.email, r.p.id, r.a.workspace, r.a.workspaceName, r.a.permissions.join(" "), reasonSummary(r.a), filterSummary(r.a)].join(" "); },
  selects: [{ key: "status", label: "Status", options: options(STATUS, statuses), test: function (r, v) { return r.p.status === v; } },
    { key: "agreement", label: "Desired state", options: options(AGREEMENT, agreements), test: function (r, v) { return r.p.agreement === v; } },
    { key: "reason", label: "Reason", options: [["direct", "direct"], ["group", "group"], ["hierarchy", "hierarchy"]], test: function (r, v) { return r.a.reasons.some(function (x) { return x.kind === v; }); } },
    { key: "filter", label: "Rows", options: [["filtered", "filtered"], ["unfiltered", "unfiltered while others are"], ["handmade", "a hand-made filter"]],
      test: function (r, v) { return v === "filtered" ? r.a.filters.length > 0 : v === "unfiltered" ? r.a.unfiltered : r.a.filters.some(function (f) { return !f.managed; }); } }],
  checks: [{ key: "manage", label: "MANAGE only", test: function (r) { return r.a.manage; } },
    { key: "handmade", label: "Hand-made only", test: handMade }],
  columns: [col("person", "Person", function (r) { return who(r.p); }, function (r) { return personCell(r.p); }),
    col("status", "Status", function (r) { return label(STATUS, r.p.status); }, function (r) { return badge(label(STATUS, r.p.status), STATUS_KIND[r.p.status] || "muted"); }),
    col("workspace", "Workspace", function (r) { return r.a.workspace; }, function (r) { return el("span", null, [el("code", { text: r.a.workspace }), r.a.workspaceName ? el("span", { className: "sub", text: r.a.workspaceName }) : null]); }),
    col("permissions", "Permissions", function (r) { return r.a.permissions.join(", "); }, function (r) { return el("span", null, [r.a.manage ? badge("MANAGE", "bad") : null, " " + r.a.permissions.filter(function (x) { return x !== "MANAGE"; }).join(", ")]); }),
    col("reason", "Reason", function (r) { return reasonSummary(r.a); }),
    col("filter", "Row filter", filterSummary, function (r) { return r.a.unfiltered ? badge("unfiltered", "bad") : el("code", { className: "maql", text: filterSummary(r.a) }); }),
    col("managed", "Desired state", function (r) { return label(AGREEMENT, r.p.agreement) + (handMade(r) ? " hand-made" : ""); }, function (r) { return el("span", null, [badge(label(AGREEMENT, r.p.agreement), AGREE_KIND[r.p.agreement] || "muted"), handMade(r) ? badge("hand-made", "bad") : null]); }),
    col("lastChange", "Last change", function (r) { return r.a.lastChange || ""; })]
});

makeTable(host("people-host"), {
  id: "people", caption: "Every person of the organization (open a row for groups, organization permissions and drift)", rows: people,
  expand: personDetail, rowKey: function (p) { return p.key; }, empty: "The organization has nobody.",
  search: function (p) { return [who(p), p.email, p.id, p.groups.join(" "), label(STATUS, p.status), p.organizationPermissions.join(" ")].join(" "); },
  selects: [{ key: "status", label: "Status", options: options(STATUS, statuses), test: function (p, v) { return p.status === v; } },
    { key: "agreement", label: "Desired state", options: options(AGREEMENT, agreements), test: function (p, v) { return p.agreement === v; } }],
  checks: [{ key: "privileged", label: "Privileged only", test: function (p) { return p.privileged; } }],
  columns: [col("person", "Person", who, personCell),
    col("status", "Status", function (p) { return label(STATUS, p.status); }, function (p) { return badge(label(STATUS, p.status), STATUS_KIND[p.status] || "muted"); }),
    col("agreement", "Desired state", function (p) { return label(AGREEMENT, p.agreement); }),
    col("groups", "Groups", function (p) { return p.groups.join(", "); }),
    col("org", "Organization", function (p) { return p.organizationPermissions.join(", "); }, function (p) { return el("span", null, [p.privileged ? badge("privileged", "bad") : null, " " + p.organizationPermissions.join(", ")]); }),
    col("workspaces", "Workspaces", function (p) { return p.access.length; }, null, true)]
});

makeTable(host("org-host"), {
  id: "org", caption: "Organization permissions, by holder", rows: data.organizationPermissions, empty: "Nobody holds organization permissions.",
  search: function (o) { return [o.assignee.id, o.email, o.permissions.join(" ")].join(" "); },
  columns: [col("holder", "Holder", function (o) { return holderText(o.assignee); }),
    col("email", "Email", function (o) { return o.email || ""; }),
    col("permissions", "Permissions", function (o) { return o.permissions.join(", "); }, function (o) { return el("span", null, [o.privileged ? badge("MANAGE: privileged", "bad") : null, " " + o.permissions.join(", ")]); }),
    col("people", "People", function (o) { return o.people === undefined ? 1 : o.people; }, null, true),
    col("managed", "usersync", function (o) { return o.managed === undefined ? "" : o.managed ? "managed" : "hand-made"; }, function (o) { return managedBadge(o.managed) || ""; })]
});

var filterIndex = {};
accessRows.forEach(function (r) {
  r.a.filters.forEach(function (f) {
    var e = filterIndex[f.id] || (filterIndex[f.id] = { f: f, people: {}, reach: {} });
    e.people[r.p.key] = 1; e.reach[r.a.workspace] = 1;
  });
});
makeTable(host("filters-host"), {
  id: "filters", caption: "Data filters that narrow someone's rows, with their MAQL", rows: Object.keys(filterIndex).sort().map(function (k) { return filterIndex[k]; }),
  empty: "No data filter applies to anyone.",
  search: function (e) { return [e.f.id, e.f.title, e.f.workspace, holderText(e.f.holder), e.f.maql].join(" "); },
  selects: [{ key: "managed", label: "Made by", options: [["usersync", "usersync"], ["hand", "hand (not usersync's)"]], test: function (e, v) { return (v === "usersync") === e.f.managed; } }],
  columns: [col("workspace", "Workspace", function (e) { return e.f.workspace; }),
    col("holder", "Holder", function (e) { return holderText(e.f.holder); }),
    col("maql", "MAQL", function (e) { return e.f.maql; }, function (e) { return el("code", { className: "maql", text: e.f.maql }); }),
    col("managed", "Made by", function (e) { return e.f.managed ? "usersync" : "hand"; }, function (e) { return managedBadge(e.f.managed); }),
    col("people", "People narrowed", function (e) { return Object.keys(e.people).length; }, null, true)]
});

makeTable(host("workspaces-host"), {
  id: "workspaces", caption: "Workspaces and their hierarchy", rows: data.workspaces, empty: "The organization has no workspace.",
  search: function (w) { return [w.id, w.name, w.path.join(" ")].join(" "); },
  columns: [col("path", "Workspace (from the root)", function (w) { return w.path.join(" / "); }, function (w) { return el("span", null, chainNodes(w.path, "contains")); }),
    col("name", "Name", function (w) { return w.name || ""; }),
    col("people", "People with access", function (w) { return w.peopleWithAccess; }, null, true),
    col("filters", "Filters", function (w) { return w.filterCount; }, null, true)]
});
document.body.setAttribute("data-ready", "true");
`;
