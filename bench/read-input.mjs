// Figure 2, reading input: `readDesiredState` on generated 100k- and 1M-row CSV and YAML files
// (written to a temp dir, never into the repo). Wall and CPU time and the peak RSS of the
// process, each run in its own process. Median of 3 runs at 100k; one run at 1M. CSV rows name
// groups the file does not declare (they would live in the service): the reader reports that,
// which costs nothing measurable. A 1M-row YAML is over the reader's 64 MiB cap and is refused.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  childReport,
  fromDist,
  measureRuns,
  median,
  printTable,
  round,
  writeResult,
  writeStreamed,
} from "./lib.mjs";

const SIZES = [100_000, 1_000_000];
const FORMATS = ["csv", "yaml"];

if (process.argv[2] === "--child") await child(process.argv[3]);
else await main();

async function child(file) {
  const { readDesiredState } = await fromDist("desired/index.js");
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const { state, problems } = await readDesiredState({ file });
  const wallMs = round(performance.now() - started, 1);
  const errors = problems.filter((p) => p.severity !== "warning").length;
  childReport({ wallMs, users: state.users.length, errors }, cpuStart);
}

/** `n` rows of a realistic export (email, id, names, two groups), as CSV or YAML. */
function* rowsOf(format, n) {
  if (format === "csv") yield "email,id,displayName,firstname,lastname,groups\n";
  else yield "version: 1\ngroups:\n  - id: all\n    name: All\n  - id: team-1\n  - id: team-2\nusers:\n";
  for (let i = 1; i <= n; i++) {
    const id = `user${String(i).padStart(7, "0")}`;
    const team = `team-${(i % 2) + 1}`;
    yield format === "csv"
      ? `${id}@bench.example,${id},User ${i},First${i},Last${i},all;${team}\n`
      : `  - email: ${id}@bench.example\n    id: ${id}\n    displayName: User ${i}\n    firstname: First${i}\n    lastname: Last${i}\n    groups: [all, ${team}]\n`;
  }
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), "usersync-bench-read-"));
  const rows = [];
  const results = [];
  try {
    for (const n of SIZES) {
      for (const format of FORMATS) {
        const file = join(dir, `users-${n}.${format}`);
        await writeStreamed(file, rowsOf(format, n));
        const size = (await stat(file)).size;
        const measured = await measureRuns(fileURLToPath(import.meta.url), ["--child", file], {
          runs: n >= 1_000_000 ? 1 : 3,
          nodeArgs: ["--max-old-space-size=8192"],
        });
        const runs = measured.length;
        const wallMs = median(measured.map((m) => m.wallMs));
        const rss = median(measured.map((m) => m.maxRssMiB));
        results.push({
          rows: n,
          format,
          bytes: size,
          runs,
          wallMs,
          cpuMs: median(measured.map((m) => m.cpuMs)),
          maxRssMiB: rss,
          measured,
        });
        rows.push([
          n.toLocaleString("en"),
          format,
          `${round(size / 1048576, 1)} MiB`,
          runs,
          `${round(wallMs / 1000, 2)} s`,
          `${round(median(measured.map((m) => m.cpuMs)) / 1000, 2)} s`,
          `${rss} MiB`,
          measured[0].users > 0
            ? measured[0].users.toLocaleString("en")
            : `0: refused (${measured[0].errors} error; YAML is capped at 64 MiB, use CSV)`,
        ]);
        await rm(file);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  printTable(
    "2. Reading input (readDesiredState; peak RSS of the process)",
    ["rows", "format", "file", "runs", "wall (median)", "CPU", "peak RSS", "users read"],
    rows,
  );
  await writeResult("read-input", { results });
}
