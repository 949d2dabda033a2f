/**
 * The access review page's table: one small component (in the page's inline script) that every
 * section uses, so sorting, filtering, paging and expanding rows behave the same everywhere.
 * Plain browser JavaScript in a string (the page loads nothing). Everything it writes goes through
 * `textContent` or `setAttribute`, never `innerHTML`: names and MAQL are hostile input.
 * Written without backticks or dollar-brace so it sits in a template literal as it is.
 */
export const TABLE_SCRIPT = String.raw`
function el(tag, attrs, children) {
  var node = document.createElement(tag);
  if (attrs) for (var k in attrs) {
    var v = attrs[k];
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = String(v);
    else if (k === "className") node.className = v;
    else if (k === "onclick") node.addEventListener("click", v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  (children || []).forEach(function (c) {
    if (c === undefined || c === null || c === false) return;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  });
  return node;
}
// One collator for every sort: localeCompare with options builds one per call.
var COLLATOR = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
function fmt(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
function badge(text, kind) { return el("span", { className: "badge b-" + kind, text: text }); }

/*
 * o: { id, caption, columns: [{ key, label, value(row) -> string|number (sort and text),
 * cell(row) -> Node|string (optional), numeric }], rows, search(row) -> string, selects:
 * [{ key, label, options: [[value, text]], test(row, value) }], checks: [{ key, label,
 * test(row) }], expand(row) -> Node (optional), rowKey(row), pageSize, empty, sort: [key, dir] }
 */
function makeTable(host, o) {
  var state = { q: "", selects: {}, checks: {}, sortKey: o.sort ? o.sort[0] : null,
    sortDir: o.sort ? o.sort[1] : 1, page: 0, size: o.pageSize || 100, open: {} };
  var hay = o.rows.map(function (r) { return o.search(r).toLowerCase(); });
  var order = o.rows.map(function (_, i) { return i; });
  var shown = order;
  var toolbar = el("div", { className: "toolbar", role: "search" });
  var qid = o.id + "-q";
  var input = el("input", { id: qid, type: "search", className: "q", placeholder: "Type to filter",
    "aria-controls": o.id + "-table", autocomplete: "off" });
  toolbar.appendChild(el("label", { "for": qid }, ["Filter ", input]));
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { state.q = input.value.trim().toLowerCase(); state.page = 0; apply(); }, 120);
  });
  (o.selects || []).forEach(function (s) {
    var sid = o.id + "-" + s.key;
    var sel = el("select", { id: sid, "data-filter": s.key, "aria-controls": o.id + "-table" },
      [el("option", { value: "", text: "any" })].concat(s.options.map(function (p) {
        return el("option", { value: p[0], text: p[1] });
      })));
    sel.addEventListener("change", function () { state.selects[s.key] = sel.value; state.page = 0; apply(); });
    toolbar.appendChild(el("label", { "for": sid }, [s.label + " ", sel]));
  });
  (o.checks || []).forEach(function (c) {
    var cid = o.id + "-" + c.key;
    var box = el("input", { id: cid, type: "checkbox", "data-filter": c.key, "aria-controls": o.id + "-table" });
    box.addEventListener("change", function () { state.checks[c.key] = box.checked; state.page = 0; apply(); });
    toolbar.appendChild(el("label", { "for": cid, className: "check" }, [box, " " + c.label]));
  });
  var count = el("p", { className: "count", role: "status", "aria-live": "polite", id: o.id + "-count" });
  toolbar.appendChild(count);
  host.appendChild(toolbar);

  var ncols = o.columns.length + (o.expand ? 1 : 0);
  var headRow = el("tr");
  if (o.expand) headRow.appendChild(el("th", { scope: "col", className: "x" }, [el("span", { className: "sr", text: "Details" })]));
  var ths = o.columns.map(function (c) {
    var b = el("button", { type: "button", className: "sort", text: c.label });
    var th = el("th", { scope: "col", "data-key": c.key, className: c.numeric ? "num" : null }, [b]);
    b.addEventListener("click", function () {
      if (state.sortKey === c.key) state.sortDir = -state.sortDir;
      else { state.sortKey = c.key; state.sortDir = 1; }
      state.page = 0; resort(); apply();
    });
    headRow.appendChild(th);
    return th;
  });
  var tbody = el("tbody");
  var table = el("table", { id: o.id + "-table", className: "data" },
    [el("caption", { text: o.caption }), el("thead", null, [headRow]), tbody]);
  host.appendChild(el("div", { className: "scroll" }, [table]));
  var pager = el("div", { className: "pager" });
  host.appendChild(pager);

  function resort() {
    order = o.rows.map(function (_, i) { return i; });
    var col = o.columns.filter(function (c) { return c.key === state.sortKey; })[0];
    if (!col) return;
    var keys = o.rows.map(function (r) { return col.value(r); });
    order.sort(function (a, b) {
      var x = keys[a], y = keys[b];
      var d = typeof x === "number" && typeof y === "number" ? x - y
        : COLLATOR.compare(String(x), String(y));
      return d !== 0 ? d * state.sortDir : a - b;
    });
    ths.forEach(function (th, i) {
      var c = o.columns[i];
      th.setAttribute("aria-sort", c.key === state.sortKey ? (state.sortDir > 0 ? "ascending" : "descending") : "none");
    });
  }
  function passes(i) {
    var r = o.rows[i];
    if (state.q && hay[i].indexOf(state.q) < 0) return false;
    for (var s = 0; s < (o.selects || []).length; s++) {
      var sel = o.selects[s], v = state.selects[sel.key];
      if (v && !sel.test(r, v)) return false;
    }
    for (var c = 0; c < (o.checks || []).length; c++) {
      var ck = o.checks[c];
      if (state.checks[ck.key] && !ck.test(r)) return false;
    }
    return true;
  }
  function apply() {
    shown = order.filter(passes);
    var size = state.size === "all" ? shown.length || 1 : state.size;
    var pages = Math.max(1, Math.ceil(shown.length / size));
    if (state.page >= pages) state.page = pages - 1;
    var from = state.page * size, to = Math.min(shown.length, from + size);
    tbody.textContent = "";
    if (shown.length === 0)
      tbody.appendChild(el("tr", { className: "empty" }, [el("td", { colspan: ncols, text: o.rows.length ? "No row matches the filters." : o.empty })]));
    for (var n = from; n < to; n++) renderRow(shown[n]);
    table.setAttribute("data-rows", String(shown.length));
    count.textContent = shown.length === o.rows.length ? fmt(o.rows.length) + " rows"
      : fmt(shown.length) + " of " + fmt(o.rows.length) + " rows match";
    renderPager(pages, from, to);
  }
  function renderRow(i) {
    var r = o.rows[i];
    var key = o.rowKey ? o.rowKey(r) : String(i);
    var tr = el("tr", { "data-row": key });
    if (o.expand) {
      var detailId = o.id + "-d-" + i;
      var open = !!state.open[key];
      var btn = el("button", { type: "button", className: "expand", "aria-expanded": open ? "true" : "false",
        "aria-controls": detailId, title: "Show why" }, [el("span", { "aria-hidden": "true", text: open ? "\u25BE" : "\u25B8" }),
        el("span", { className: "sr", text: "Details of row " + (i + 1) })]);
      btn.addEventListener("click", function () { state.open[key] = !state.open[key]; state.focus = key; apply(); });
      tr.appendChild(el("td", { className: "x" }, [btn]));
    }
    o.columns.forEach(function (c, ci) {
      var content = c.cell ? c.cell(r) : String(c.value(r));
      var cellTag = ci === 0 ? "th" : "td";
      tr.appendChild(el(cellTag, { scope: ci === 0 ? "row" : null, className: c.numeric ? "num" : null }, [content]));
    });
    tbody.appendChild(tr);
    // The rows are built again: the button pressed keeps the keyboard focus.
    if (o.expand && state.focus === key) { state.focus = null; btn.focus(); }
    if (o.expand && state.open[key])
      tbody.appendChild(el("tr", { className: "detail", id: o.id + "-d-" + i }, [el("td", { colspan: ncols }, [o.expand(r)])]));
  }
  function renderPager(pages, from, to) {
    pager.textContent = "";
    if (o.rows.length <= 25) return;
    var prev = el("button", { type: "button", text: "Previous", disabled: state.page === 0 });
    prev.addEventListener("click", function () { state.page--; apply(); });
    var next = el("button", { type: "button", text: "Next", disabled: state.page >= pages - 1 });
    next.addEventListener("click", function () { state.page++; apply(); });
    var sid = o.id + "-size";
    var size = el("select", { id: sid }, [25, 100, 500, "all"].map(function (n) {
      return el("option", { value: String(n), text: n === "all" ? "all (for printing)" : String(n), selected: String(state.size) === String(n) });
    }));
    size.addEventListener("change", function () { state.size = size.value === "all" ? "all" : Number(size.value); state.page = 0; apply(); });
    var where = shown.length ? "Rows " + fmt(from + 1) + "\u2013" + fmt(to) + " of " + fmt(shown.length) : "";
    pager.appendChild(prev);
    pager.appendChild(el("span", { text: where + " (page " + (state.page + 1) + " of " + pages + ")" }));
    pager.appendChild(next);
    pager.appendChild(el("label", { "for": sid }, ["Rows per page ", size]));
  }
  resort();
  apply();
}
`;
