/**
 * User data filters over the entity API (profile v1; docs/data-filters.md): the workspace's own
 * filters (`origin=NATIVE`: a child workspace also lists its parents', which are the parents' to
 * keep), created, replaced and deleted one by one. Never the declarative layout, which replaces
 * every filter of a workspace. Answers are checked before they are believed: a filter without its
 * MAQL or assignee is a broken answer (AnswerError), never a filter read as absent.
 */
import {
  MANAGED_TAG,
  filterTitle,
  isManagedFilter,
  type ActualDataFilter,
  type DataFilter,
} from "../data-filters.js";
import { AnswerError, HttpError } from "../errors.js";
import type { Assignee } from "../permissions.js";
import { oneAnswer, resource } from "./answers.js";
import { ENTITY_MEDIA, type Resource } from "./codec.js";
import { deleteEntity } from "./delete-entity.js";
import { listAllPages } from "./paging.js";
import type { Transport } from "./transport.js";
import type { CallOptions, CreateResult, DataFiltersClient, DeleteResult } from "./types.js";

const seg = encodeURIComponent;
export const filtersPath = (ws: string): string => `/api/v1/entities/workspaces/${seg(ws)}/userDataFilters`;
export const FILTER_RESOURCE = resource("userDataFilter", ["maql", "title"]);
const FILTER_DOCUMENT = oneAnswer(FILTER_RESOURCE);

function broken(path: string, problem: string): AnswerError {
  return new AnswerError({ method: "GET", path, problem });
}

/** One checked resource → a filter; the assignee from the `user` or `userGroup` relationship. */
export function decodeFilter(workspace: string, r: Resource, path: string): ActualDataFilter {
  const maql = r.attributes?.["maql"];
  if (typeof maql !== "string") throw broken(path, `userDataFilter ${r.id} has no maql`);
  const rawTags = r.attributes?.["tags"] ?? [];
  if (!Array.isArray(rawTags) || !rawTags.every((t) => typeof t === "string"))
    throw broken(path, `userDataFilter ${r.id}: tags must be a list of strings`);
  const tags = rawTags as string[];
  const assignee = assigneeOf(r);
  if (!assignee) throw broken(path, `userDataFilter ${r.id} names neither a user nor a userGroup`);
  const title = r.attributes?.["title"];
  // Built member by member, not spread: `{ ...f, managed }` gave every filter a hidden class of
  // its own in V8, 250 bytes each, 50 MiB for 200,000 filters (docs/benchmarks.md figure 16).
  const f: Omit<ActualDataFilter, "managed"> & { managed?: boolean } = {
    id: r.id,
    workspace,
    assignee,
    maql,
    tags,
  };
  if (typeof title === "string") f.title = title;
  f.managed = isManagedFilter(f);
  return f as ActualDataFilter;
}

function assigneeOf(r: Resource): Assignee | undefined {
  for (const type of ["user", "userGroup"] as const) {
    const data = r.relationships?.[type]?.data as { id?: unknown } | null | undefined;
    if (data && !Array.isArray(data) && typeof data.id === "string") return { type, id: data.id };
  }
  return undefined;
}

/** The resource usersync writes: its tag, a title saying so, the MAQL and the one assignee. */
function encode(f: DataFilter & { id: string }): unknown {
  return {
    data: {
      id: f.id,
      type: "userDataFilter",
      attributes: { maql: f.maql, title: filterTitle(f), tags: [MANAGED_TAG] },
      relationships: { [f.assignee.type]: { data: { id: f.assignee.id, type: f.assignee.type } } },
    },
  };
}

export class DataFiltersApi implements DataFiltersClient {
  constructor(private readonly o: { transport: Transport; pageSize: number }) {}

  async list(workspace: string): Promise<ActualDataFilter[]> {
    const path = filtersPath(workspace);
    const items = await listAllPages({
      transport: this.o.transport,
      path,
      pageSize: this.o.pageSize,
      include: "user,userGroup",
      query: { origin: "NATIVE" },
      item: FILTER_RESOURCE,
    });
    return items.map((r) => decodeFilter(workspace, r, path));
  }

  async get(workspace: string, id: string): Promise<ActualDataFilter | undefined> {
    const path = `${filtersPath(workspace)}/${seg(id)}`;
    const { status, json } = await this.o.transport.request({
      method: "GET",
      path,
      mediaType: ENTITY_MEDIA,
      accept: [404],
      answer: FILTER_DOCUMENT,
    });
    return status === 404 ? undefined : decodeFilter(workspace, json.data, path);
  }

  async create(f: DataFilter & { id: string }, opts?: CallOptions): Promise<CreateResult<ActualDataFilter>> {
    try {
      await this.o.transport.request({
        method: "POST",
        path: filtersPath(f.workspace),
        mediaType: ENTITY_MEDIA,
        body: encode(f),
        isCreate: true,
        call: opts,
      });
      return { status: "created", value: { ...f, tags: [MANAGED_TAG], managed: true } };
    } catch (err) {
      if (err instanceof HttpError && err.exists) return { status: "exists" };
      throw err;
    }
  }

  async replace(f: DataFilter & { id: string }, opts?: CallOptions): Promise<void> {
    const path = `${filtersPath(f.workspace)}/${seg(f.id)}`;
    await this.o.transport.request({
      method: "PUT",
      path,
      mediaType: ENTITY_MEDIA,
      body: encode(f),
      call: opts,
    });
  }

  async delete(workspace: string, id: string, opts?: CallOptions): Promise<DeleteResult> {
    return deleteEntity(this.o.transport, `${filtersPath(workspace)}/${seg(id)}`, opts);
  }
}
