// `npm audit --omit=dev` for CI: fails on an advisory against a production dependency unless
// docs/dependencies.md (or the file given as the argument) explains it: its GHSA id is written
// in the section "Advisories". When the registry's audit endpoint cannot be asked (some mirrors
// and proxies refuse it), it says so on one line and does not fail: nothing was checked, and the
// line says so rather than claiming a clean audit.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const GHSA = /GHSA(-[23456789cfghjmpqrvwx]{4}){3}/g;
const docs = process.argv[2] ?? new URL("../docs/dependencies.md", import.meta.url);

function audit() {
  try {
    const out = execFileSync("npm", ["audit", "--omit=dev", "--json"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return JSON.parse(out);
  } catch (err) {
    // npm audit exits 1 both when it finds something and when it cannot ask: the JSON tells which.
    try {
      return JSON.parse(err.stdout || "{}");
    } catch {
      return { message: "npm audit printed no JSON" };
    }
  }
}

const report = audit();
if (report.vulnerabilities === undefined) {
  const why = report.message ?? report.error?.summary ?? "no report";
  console.log(`check-audit: not checked: the registry's audit endpoint could not be asked (${why})`);
  process.exit(0);
}

// The ids explained: those in the section "## Advisories", up to the next "## " heading.
const markdown = readFileSync(docs, "utf8");
const section = markdown.split(/^## /m).find((part) => part.startsWith("Advisories")) ?? "";
const explained = new Set(section.match(GHSA) ?? []);

// One line per advisory; a package vulnerable only through another one has no advisory of its own.
const advisories = new Map();
for (const [name, vulnerability] of Object.entries(report.vulnerabilities)) {
  for (const via of vulnerability.via ?? []) {
    if (typeof via !== "object") continue;
    const id = (via.url ?? "").match(GHSA)?.[0] ?? String(via.url ?? via.source);
    advisories.set(id, { id, name, severity: via.severity, title: via.title, range: via.range ?? "" });
  }
}
let open = 0;
for (const a of advisories.values()) {
  const ok = explained.has(a.id);
  if (!ok) open++;
  const note = ok ? "explained in docs/dependencies.md" : "NOT explained in docs/dependencies.md";
  console.log(`check-audit: ${a.id} (${a.severity}) in ${a.name} ${a.range}: ${a.title}; ${note}`);
}
console.log(
  `check-audit: ${advisories.size} advisories against production dependencies, ${open} not explained`,
);
process.exit(open > 0 ? 1 : 0);
