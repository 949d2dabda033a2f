/** Writes the metrics file at the end of a run, keeping the last success time of earlier runs. */
import { readFile } from "node:fs/promises";
import { previousLastSuccess, renderMetrics, type MetricsInput } from "../report/metrics.js";
import { writeFileAtomic } from "./files.js";

export async function writeMetricsFile(
  path: string,
  input: Omit<MetricsInput, "now" | "previousLastSuccess">,
): Promise<void> {
  let previous: number | undefined;
  try {
    previous = previousLastSuccess(await readFile(path, "utf8"), input.command);
  } catch {
    previous = undefined;
  }
  const now = Math.floor(Date.now() / 1000);
  await writeFileAtomic(
    path,
    renderMetrics({ ...input, now, ...(previous !== undefined ? { previousLastSuccess: previous } : {}) }),
  );
}
