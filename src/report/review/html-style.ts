/** The access review page's style sheet: inline, system fonts only (the page fetches nothing). */
export const REVIEW_CSS = `
:root { --ink: #1f2933; --muted: #616e7c; --line: #d9dee4; --bg: #f5f7fa; --card: #fff; --accent: #1f4e8c;
  --bad: #a61b1b; --bad-bg: #fde8e8; --warn: #8a5300; --warn-bg: #fff3d6; --ok: #1d6b3a; --ok-bg: #e3f4e8;
  --info: #1f4e8c; --info-bg: #e4edf9; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--bg); }
header.top { background: #17324f; color: #fff; padding: 18px 28px 14px; }
header.top h1 { margin: 0 0 4px; font-size: 22px; font-weight: 600; }
header.top p { margin: 2px 0; color: #d4dfec; }
header.top code { color: #fff; }
nav.toc { position: sticky; top: 0; z-index: 2; background: #fff; border-bottom: 1px solid var(--line); padding: 8px 28px; }
nav.toc a { margin-right: 18px; color: var(--accent); text-decoration: none; font-weight: 500; }
nav.toc a:hover, nav.toc a:focus { text-decoration: underline; }
main { padding: 8px 28px 40px; max-width: 1600px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 14px 18px; margin: 18px 0; }
h2 { font-size: 18px; margin: 0 0 6px; }
h4 { margin: 6px 0 4px; font-size: 13px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
p.lead { margin: 0 0 10px; color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; margin: 10px 0 4px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; background: #fff; }
.card .n { font-size: 22px; font-weight: 600; display: block; }
.card .l { color: var(--muted); font-size: 12px; }
.card.alert { border-color: var(--bad); background: var(--bad-bg); }
.card.alert .n { color: var(--bad); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 8px 0; }
.toolbar label { color: var(--muted); font-size: 13px; }
.toolbar input.q { width: 260px; padding: 5px 8px; border: 1px solid #9aa5b1; border-radius: 4px; font: inherit; color: var(--ink); }
.toolbar select { padding: 4px; border: 1px solid #9aa5b1; border-radius: 4px; font: inherit; }
.toolbar .count { margin: 0 0 0 auto; font-weight: 600; }
.scroll { overflow-x: auto; }
table.data { border-collapse: collapse; width: 100%; }
table.data caption { text-align: left; color: var(--muted); padding: 2px 0 6px; }
table.data th, table.data td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
table.data thead th { background: #eef1f5; position: sticky; top: 37px; z-index: 1; white-space: nowrap; }
table.data tbody th { font-weight: normal; }
table.data tbody tr:hover { background: #f8fafc; }
.num { text-align: right !important; font-variant-numeric: tabular-nums; }
button.sort { background: none; border: 0; padding: 0; font: inherit; font-weight: 600; color: var(--ink); cursor: pointer; }
button.sort::after { content: " \\2195"; color: #9aa5b1; }
th[aria-sort="ascending"] button.sort::after { content: " \\25B2"; color: var(--accent); }
th[aria-sort="descending"] button.sort::after { content: " \\25BC"; color: var(--accent); }
button:focus-visible, input:focus-visible, select:focus-visible, a:focus-visible { outline: 3px solid #f0b429; outline-offset: 1px; }
td.x, th.x { width: 28px; padding-right: 0; }
button.expand { border: 1px solid var(--line); background: #fff; border-radius: 4px; width: 24px; height: 24px; cursor: pointer; color: var(--accent); }
tr.detail > td { background: #f7f9fc; }
.details { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 6px 24px; }
ul.chain { margin: 0; padding-left: 18px; }
ul.chain li { margin: 3px 0; }
.arrow { color: var(--muted); }
.person .name { display: block; }
.sub { display: block; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
code { font: 12px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #eef1f5; padding: 1px 4px; border-radius: 3px; }
code.maql { white-space: pre-wrap; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600; margin-right: 4px; white-space: nowrap; }
.b-bad { background: var(--bad-bg); color: var(--bad); }
.b-warn { background: var(--warn-bg); color: var(--warn); }
.b-ok { background: var(--ok-bg); color: var(--ok); }
.b-info { background: var(--info-bg); color: var(--info); }
.b-muted { background: #eef1f5; color: var(--muted); }
p.alarm { color: var(--bad); font-weight: 600; }
.pager { display: flex; gap: 12px; align-items: center; margin-top: 8px; color: var(--muted); }
.pager button { font: inherit; padding: 3px 10px; border: 1px solid #9aa5b1; border-radius: 4px; background: #fff; cursor: pointer; }
.pager button[disabled] { opacity: .45; cursor: default; }
.empty td { color: var(--muted); font-style: italic; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.noscript { background: var(--warn-bg); color: var(--warn); padding: 10px 28px; margin: 0; }
@media print {
  nav.toc, .toolbar select, .pager, td.x, th.x { display: none; }
  body { background: #fff; }
  section { break-inside: auto; border: 0; padding: 0; }
  table.data thead th { position: static; }
}
`;
