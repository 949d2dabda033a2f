/**
 * The decision page's script (html.ts): a reviewer picks their name, sees their rows, decides
 * each (keep, revoke, change to fewer permissions) with a comment, and downloads the decisions
 * file. Decisions not yet downloaded are kept in the browser's localStorage, per campaign and
 * reviewer, so a reload (or a closed tab) loses nothing. Everything is built with textContent.
 * A reviewer's page of a large campaign (pages.ts) has a `page` in its data: its reviewer is
 * chosen, its decisions are kept and downloaded per page (the file named by the part).
 */
export const DECISION_SCRIPT = `(function () {
"use strict";
var c = JSON.parse(document.getElementById("campaign-data").textContent);
var $ = function (id) { return document.getElementById(id); };
var who = $("reviewer"), body = $("rows"), count = $("count");
function el(tag, text, cls) { var e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
var page = c.page;
function key() { return "usersync-campaign:" + c.id + ":" + who.value + (page ? ":" + page.part : ""); }
function load() { try { return JSON.parse(localStorage.getItem(key()) || "{}"); } catch (e) { return {}; } }
function save(d) { try { localStorage.setItem(key(), JSON.stringify(d)); } catch (e) { /* private mode: kept until reload */ } }
var state = {};
c.reviewers.forEach(function (r) { var o = el("option", r.email + " (" + r.rows + ")"); o.value = r.email; who.appendChild(o); });
var fromHash = /reviewer=([^&]+)/.exec(location.hash);
if (fromHash) who.value = decodeURIComponent(fromHash[1]);
if (page) who.value = page.reviewer;
function mine() { return c.rows.filter(function (r) { return who.value !== "" && r.reviewers.indexOf(who.value) >= 0; }); }
function setDecision(row, decision, tr) {
  var d = state[row.rowId] || {};
  d.decision = decision; d.decidedAt = new Date().toISOString();
  if (decision === "change") d.permissions = d.permissions || row.permissions.slice(0, 1); else delete d.permissions;
  state[row.rowId] = d; save(state); paint(tr, row);
}
function paint(tr, row) {
  var d = state[row.rowId];
  tr.dataset.decision = d ? d.decision : "";
  tr.querySelectorAll("button[data-d]").forEach(function (b) { b.setAttribute("aria-pressed", String(!!d && d.decision === b.dataset.d)); });
  var ch = tr.querySelector(".change");
  ch.hidden = !d || d.decision !== "change";
  ch.querySelectorAll("input").forEach(function (i) { i.checked = !!d && !!d.permissions && d.permissions.indexOf(i.value) >= 0; });
  tally();
}
function tally() {
  var rows = mine(), n = rows.filter(function (r) { return state[r.rowId]; }).length;
  count.textContent = n + " of " + rows.length + " row(s) decided" + (page && page.parts > 1 ? " on this page" : "");
  $("download").disabled = n === 0;
}
function rowOf(row) {
  var tr = el("tr"); tr.dataset.row = row.rowId;
  [row.email || row.userId || row.person, row.displayName || "", row.workspace || "(organization)", row.permissions.join(" "),
   row.reasons.map(function (x) { return x.text + ": " + x.permissions.join(" ") + " (" + x.given + ")"; }).join(" | "), row.status]
    .forEach(function (t) { tr.appendChild(el("td", t)); });
  var td = el("td"), buttons = el("div", undefined, "decide");
  ["keep", "revoke", "change"].forEach(function (d) {
    var b = el("button", d); b.type = "button"; b.dataset.d = d; b.setAttribute("aria-pressed", "false");
    b.setAttribute("aria-label", d + " " + (row.email || row.person) + " on " + (row.workspace || "the organization"));
    b.addEventListener("click", function () { setDecision(row, d, tr); });
    buttons.appendChild(b);
  });
  td.appendChild(buttons);
  var ch = el("fieldset", undefined, "change"); ch.hidden = true; ch.appendChild(el("legend", "keep only"));
  row.permissions.forEach(function (p) {
    var l = el("label"), i = el("input"); i.type = "checkbox"; i.value = p;
    i.addEventListener("change", function () {
      var d = state[row.rowId]; d.permissions = Array.prototype.filter.call(ch.querySelectorAll("input"), function (x) { return x.checked; }).map(function (x) { return x.value; });
      d.decidedAt = new Date().toISOString(); save(state);
    });
    l.appendChild(i); l.appendChild(document.createTextNode(" " + p)); ch.appendChild(l);
  });
  td.appendChild(ch);
  var note = el("input"); note.type = "text"; note.className = "comment"; note.placeholder = "comment";
  note.setAttribute("aria-label", "comment on " + (row.email || row.person) + " " + (row.workspace || "organization"));
  note.value = (state[row.rowId] && state[row.rowId].comment) || "";
  note.addEventListener("input", function () { var d = state[row.rowId]; if (!d) return; d.comment = note.value; save(state); });
  td.appendChild(note); tr.appendChild(td);
  paint(tr, row);
  return tr;
}
function render() {
  state = who.value === "" ? {} : load();
  body.textContent = "";
  mine().forEach(function (r) { body.appendChild(rowOf(r)); });
  $("empty").hidden = who.value !== "";
  tally();
}
who.addEventListener("change", function () { location.hash = who.value === "" ? "" : "reviewer=" + encodeURIComponent(who.value); render(); });
$("download").addEventListener("click", function () {
  var decisions = mine().filter(function (r) { return state[r.rowId]; }).map(function (r) {
    var d = state[r.rowId], out = { rowId: r.rowId, decision: d.decision, reviewer: who.value, decidedAt: d.decidedAt };
    if (d.decision === "change") out.permissions = d.permissions || [];
    if (d.comment) out.comment = d.comment;
    return out;
  });
  var file = { formatVersion: 1, kind: "usersync-campaign-decisions", campaign: c.id, digest: c.snapshot.digest, decisions: decisions };
  var a = el("a"); a.download = "decisions-" + who.value.replace(/[^A-Za-z0-9._-]/g, "_") + (page && page.parts > 1 ? "-" + page.part : "") + ".json";
  a.href = "data:application/json;charset=utf-8," + encodeURIComponent(JSON.stringify(file, null, 2) + "\\n");
  document.body.appendChild(a); a.click(); a.remove();
});
render();
document.body.dataset.ready = "true";
})();
`;
