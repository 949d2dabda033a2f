/**
 * Pushes a run's metrics to a Prometheus Pushgateway: the way Prometheus documents for batch jobs,
 * whose pods are gone before any scrape. POST, not PUT: POST replaces only the metrics present in
 * the body, so a failed run (which carries no `usersync_last_success_timestamp_seconds` unless an
 * earlier metrics file had one) leaves the last success time of an earlier push in place.
 *
 * A push that fails is a warning, never a change of the run's exit code: the users are synced
 * either way, and the Pushgateway's own `push_failure_time_seconds` shows the gap.
 */
import { httpDestination } from "./http.js";
import type { Logger } from "pino";

export interface MetricsPush {
  /** Base URL of the Pushgateway, e.g. http://pushgateway.monitoring:9091 */
  url: string;
  job: string;
  /** Grouping labels, `name=value` each, in path order. */
  grouping: readonly string[];
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** `/metrics/job/<job>/<label>/<value>…`, every part URL-encoded (base64 encoding is not needed then). */
export function pushPath(push: MetricsPush): string {
  const parts = ["metrics", "job", encodeURIComponent(push.job)];
  for (const pair of push.grouping) {
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (eq <= 0 || !LABEL_NAME.test(name) || value === "") {
      throw new Error(`grouping label "${pair}" must be name=value with a Prometheus label name`);
    }
    parts.push(name, encodeURIComponent(value));
  }
  return `/${parts.join("/")}`;
}

export async function pushMetrics(push: MetricsPush, body: string, logger: Logger): Promise<void> {
  let target: string;
  try {
    target = new URL(pushPath(push).slice(1), push.url.endsWith("/") ? push.url : `${push.url}/`).toString();
  } catch (err) {
    logger.warn(
      { err: (err as Error).message },
      "metrics not pushed: check output.metricsPushUrl and output.metricsPushGrouping",
    );
    return;
  }
  try {
    const res = await httpDestination().send(target, {
      method: "POST",
      headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
      body,
      timeoutMs: 10_000,
    });
    const text = await res.body.text();
    if (res.status >= 300) {
      logger.warn(
        { url: target, status: res.status, body: text.slice(0, 200) },
        "metrics push rejected by the Pushgateway; the run's exit code is unchanged",
      );
      return;
    }
    logger.info({ url: target }, "metrics pushed");
  } catch (err) {
    logger.warn(
      { url: target, err: (err as Error).message },
      "metrics push failed (is output.metricsPushUrl reachable?); the run's exit code is unchanged",
    );
  }
}
