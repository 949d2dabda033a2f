/**
 * A Pushgateway stand-in on 127.0.0.1:0: accepts PUT/POST on /metrics/job/<job>/<label>/<value>…,
 * checks the body is the text exposition format (HELP/TYPE before samples, valid names, numeric
 * values) and answers 400 like the real one otherwise; remembers every push.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Push {
  method: string;
  path: string;
  contentType: string | undefined;
  body: string;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the exposition format; throws on the first malformed line. */
export function parseExposition(body: string): Push["samples"] {
  const typed = new Set<string>();
  const samples: Push["samples"] = [];
  for (const line of body.split("\n")) {
    if (line === "") continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (meta) {
      if (meta[1] === "TYPE") {
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(meta[3]!))
          throw new Error(`bad TYPE: ${line}`);
        typed.add(meta[2]!);
      }
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`bad line: ${line}`);
    if (!typed.has(m[1]!)) throw new Error(`sample before its TYPE: ${line}`);
    const value = Number(m[3]);
    if (Number.isNaN(value) && m[3] !== "NaN") throw new Error(`bad value: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value });
  }
  if (!body.endsWith("\n")) throw new Error("body must end with a line break");
  return samples;
}

export async function startFakePushgateway(): Promise<{
  url: string;
  pushes: Push[];
  close(): Promise<void>;
}> {
  const pushes: Push[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const path = req.url ?? "";
      if (
        !["PUT", "POST"].includes(req.method ?? "") ||
        !/^\/metrics\/job\/[^/]+(\/[^/]+\/[^/]+)*$/.test(path)
      ) {
        res.writeHead(404).end("not found");
        return;
      }
      try {
        const samples = parseExposition(body);
        pushes.push({ method: req.method!, path, contentType: req.headers["content-type"], body, samples });
        res.writeHead(200).end();
      } catch (err) {
        res.writeHead(400).end((err as Error).message);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pushes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The series a real Pushgateway exposes after these pushes: each push's group (job and grouping
 * labels from its path) gets its samples; a POST replaces only the metrics it names (an earlier
 * push's others stay, e.g. the last success time after a failed run), a PUT the whole group.
 */
export function exposedSeries(pushes: readonly Push[]): Push["samples"] {
  const groups = new Map<string, { labels: Record<string, string>; byName: Map<string, Push["samples"]> }>();
  for (const push of pushes) {
    const parts = push.path.split("/").slice(2).map(decodeURIComponent);
    const labels: Record<string, string> = {};
    for (let i = 0; i + 1 < parts.length; i += 2) labels[parts[i]!] = parts[i + 1]!;
    const group = groups.get(push.path) ?? { labels, byName: new Map() };
    if (push.method === "PUT") group.byName.clear();
    const byName = new Map<string, Push["samples"]>();
    for (const s of push.samples) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
    for (const [name, samples] of byName) group.byName.set(name, samples);
    groups.set(push.path, group);
  }
  return [...groups.values()].flatMap((g) =>
    [...g.byName.values()].flat().map((s) => ({ ...s, labels: { ...s.labels, ...g.labels } })),
  );
}
