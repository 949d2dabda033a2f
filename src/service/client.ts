/**
 * The `ServiceClient` of both profiles: one implementation, the differences live in the codec.
 * Creates are retried safely because a duplicate reports `exists`; deletes that meet 404 report
 * `notFound`; a GET of a missing object returns `undefined`.
 */
import { HttpError } from "../errors.js";
import {
  GROUP_RESOURCE,
  IDP_CREATED_ANSWER,
  IDP_LIST_ANSWER,
  IDP_USER_ANSWER,
  oneAnswer,
  PROFILE_ANSWER,
  profileRead,
  type ProfileRead,
  USER_RESOURCE,
  type ResourceSchema,
} from "./answers.js";
import { ENTITY_MEDIA, JSON_MEDIA, resourceOf, type ProfileCodec, type Resource } from "./codec.js";
import { deleteEntity } from "./delete-entity.js";
import { changeGroupMembers, readGroupMembers } from "./members.js";
import { ApiTokensApi } from "./api-tokens.js";
import { listAllPages } from "./paging.js";
import { PermissionsApi, noPermissionsApi } from "./permissions-api.js";
import { readIdentityProviderDomains, readSignIn, type OrganizationSignIn } from "./sign-in.js";
import { readJit } from "./jit.js";
import { DataFiltersApi } from "./data-filters-api.js";
import type { RequestSpec, Transport } from "./transport.js";
import type {
  ApiTokensClient,
  PermissionsClient,
  CallOptions,
  ClientStats,
  CreateResult,
  DataFiltersClient,
  DeleteResult,
  IdpUser,
  JitProvisioning,
  Mapping,
  MembersRead,
  MembersResult,
  NewIdpUser,
  ServiceClient,
  UserGroup,
} from "./types.js";

const seg = encodeURIComponent;

export interface ProfileClientOptions {
  codec: ProfileCodec;
  transport: Transport;
  baseUrl: string;
  pageSize: number;
  /** The profile answer read during `auto` detection, so it is not asked twice. */
  knownProfile?: ProfileRead | undefined;
}

async function asCreate<T>(run: () => Promise<T>): Promise<CreateResult<T>> {
  try {
    return { status: "created", value: await run() };
  } catch (err) {
    if (err instanceof HttpError && err.exists) return { status: "exists" };
    throw err;
  }
}

/** The members the planner reads, nothing the service added. */
function idpUserOf(u: IdpUser): IdpUser {
  return { email: u.email, displayName: u.displayName, authenticationId: u.authenticationId };
}

export class ProfileClient implements ServiceClient {
  readonly profile;
  readonly baseUrl: string;
  private readonly codec: ProfileCodec;
  private readonly t: Transport;
  readonly permissions: PermissionsClient;
  readonly dataFilters?: DataFiltersClient;
  readonly apiTokens?: ApiTokensClient;

  constructor(private readonly o: ProfileClientOptions) {
    this.codec = o.codec;
    this.profile = o.codec.profile;
    this.t = o.transport;
    this.baseUrl = o.baseUrl;
    this.permissions =
      o.codec.profile === "v1"
        ? new PermissionsApi({ transport: o.transport, pageSize: o.pageSize })
        : noPermissionsApi(o.codec.profile);
    if (o.codec.profile === "v1") {
      this.dataFilters = new DataFiltersApi({ transport: o.transport, pageSize: o.pageSize });
      this.apiTokens = new ApiTokensApi({ transport: o.transport, pageSize: o.pageSize });
    }
  }

  private async send<T = unknown>(spec: RequestSpec<T>): Promise<{ status: number; json: T }> {
    return this.t.request(spec);
  }

  async getProfile(): Promise<ProfileRead | undefined> {
    if (this.o.knownProfile) return this.o.knownProfile;
    const path = this.codec.paths.profile;
    if (path === undefined) return undefined;
    const { json } = await this.send({ method: "GET", path, mediaType: JSON_MEDIA, answer: PROFILE_ANSWER });
    return profileRead(json);
  }

  async signIn(): Promise<OrganizationSignIn | undefined> {
    const path = this.codec.paths.profile;
    return path === undefined ? undefined : readSignIn(this.t, path, this.o.knownProfile?.organizationId);
  }

  identityProviderDomains = (): Promise<string[]> =>
    this.codec.profile === "v1" ? readIdentityProviderDomains(this.t) : Promise.resolve([]);
  async jitProvisioning(): Promise<JitProvisioning | undefined> {
    return this.codec.profile === "v1" ? readJit(this.t) : undefined;
  }

  async listIdpUsers(): Promise<IdpUser[]> {
    const { json } = await this.send({
      method: "GET",
      path: this.codec.paths.idpUsers,
      mediaType: JSON_MEDIA,
      answer: IDP_LIST_ANSWER,
    });
    return json.map(idpUserOf);
  }

  async getIdpUser(email: string): Promise<IdpUser | undefined> {
    const path = `${this.codec.paths.idpUsers}/${seg(email)}`;
    const { status, json } = await this.send({
      method: "GET",
      path,
      mediaType: JSON_MEDIA,
      accept: [404],
      answer: IDP_USER_ANSWER,
    });
    return status === 404 ? undefined : idpUserOf(json);
  }

  async createIdpUser(user: NewIdpUser, opts?: CallOptions): Promise<CreateResult<IdpUser>> {
    const body = {
      email: user.email,
      displayName: user.displayName,
      ...(user.password !== undefined ? { password: user.password } : {}),
    };
    return asCreate(async () => {
      const { json } = await this.send({
        method: "POST",
        path: this.codec.paths.idpUsers,
        mediaType: JSON_MEDIA,
        body,
        isCreate: true,
        secrets: user.password !== undefined ? [user.password] : [],
        call: opts,
        answer: IDP_CREATED_ANSWER,
      });
      const { email, displayName = user.displayName, authenticationId } = json;
      if (authenticationId) return { email, displayName, authenticationId };
      // The mapping needs the generated authenticationId: read it back if the answer lacked it.
      const read = await this.getIdpUser(user.email);
      return read ?? { email: user.email, displayName: user.displayName, authenticationId: "" };
    });
  }

  async updateIdpUser(user: NewIdpUser, opts?: CallOptions): Promise<void> {
    const path = `${this.codec.paths.idpUsers}/${seg(user.email)}`;
    const { email, displayName, password } = user;
    const [body, secrets] = password === undefined ? [{ email, displayName }, []] : [user, [password]];
    await this.send({ method: "PUT", path, mediaType: JSON_MEDIA, body, secrets, call: opts });
  }

  async deleteIdpUser(email: string, opts?: CallOptions): Promise<DeleteResult> {
    return deleteEntity(this.t, `${this.codec.paths.idpUsers}/${seg(email)}`, opts, JSON_MEDIA);
  }

  async listMappings(): Promise<Mapping[]> {
    return listAllPages({
      transport: this.t,
      path: this.codec.paths.users,
      pageSize: this.o.pageSize,
      include: this.codec.include.users,
      item: USER_RESOURCE,
      decode: (r) => this.codec.decodeMapping(r),
    });
  }

  async getMapping(id: string): Promise<Mapping | undefined> {
    const r = await this.getEntity(this.codec.paths.users, id, this.codec.include.users, USER_RESOURCE);
    return r && this.codec.decodeMapping(r);
  }

  async createMapping(mapping: Mapping, opts?: CallOptions): Promise<CreateResult<Mapping>> {
    const body = this.codec.encodeMapping(mapping, "create");
    return asCreate(async () => {
      const { json } = await this.send({
        method: "POST",
        path: this.codec.paths.users,
        mediaType: ENTITY_MEDIA,
        body,
        isCreate: true,
        call: opts,
      });
      const r = resourceOf(json);
      return r ? this.codec.decodeMapping(r) : mapping;
    });
  }

  async updateMapping(mapping: Mapping, opts?: CallOptions): Promise<Mapping> {
    const body = this.codec.encodeMapping(mapping, "update");
    const path = `${this.codec.paths.users}/${seg(mapping.id)}`;
    const { json } = await this.send({ method: "PUT", path, mediaType: ENTITY_MEDIA, body, call: opts });
    const r = resourceOf(json);
    return r ? this.codec.decodeMapping(r) : mapping;
  }

  async deleteMapping(id: string, opts?: CallOptions): Promise<DeleteResult> {
    return deleteEntity(this.t, `${this.codec.paths.users}/${seg(id)}`, opts);
  }

  async listGroups(): Promise<UserGroup[]> {
    return listAllPages({
      transport: this.t,
      path: this.codec.paths.groups,
      pageSize: this.o.pageSize,
      include: this.codec.include.groups,
      item: GROUP_RESOURCE,
      decode: (r) => this.codec.decodeGroup(r),
    });
  }

  async getGroup(id: string): Promise<UserGroup | undefined> {
    const r = await this.getEntity(this.codec.paths.groups, id, this.codec.include.groups, GROUP_RESOURCE);
    return r && this.codec.decodeGroup(r);
  }

  async createGroup(group: UserGroup, opts?: CallOptions): Promise<CreateResult<UserGroup>> {
    const body = this.codec.encodeGroup(group, "create");
    return asCreate(async () => {
      const { json } = await this.send({
        method: "POST",
        path: this.codec.paths.groups,
        mediaType: ENTITY_MEDIA,
        body,
        isCreate: true,
        call: opts,
      });
      const r = resourceOf(json);
      return r ? this.codec.decodeGroup(r) : group;
    });
  }

  async updateGroup(group: UserGroup, opts?: CallOptions): Promise<UserGroup> {
    const body = this.codec.encodeGroup(group, "update");
    const path = `${this.codec.paths.groups}/${seg(group.id)}`;
    const { json } = await this.send({ method: "PUT", path, mediaType: ENTITY_MEDIA, body, call: opts });
    const r = resourceOf(json);
    return r ? this.codec.decodeGroup(r) : group;
  }

  async deleteGroup(id: string, opts?: CallOptions): Promise<DeleteResult> {
    return deleteEntity(this.t, `${this.codec.paths.groups}/${seg(id)}`, opts);
  }

  getGroupMembers(groupId: string): Promise<MembersRead> {
    return readGroupMembers(this.t, this.codec.paths.userManagement, groupId);
  }

  changeGroupMembers(
    change: { groupId: string; op: "add" | "remove"; userIds: readonly string[] },
    opts?: CallOptions,
  ): Promise<MembersResult> {
    return changeGroupMembers(this.t, this.codec.paths.userManagement, change, opts);
  }

  stats = (): ClientStats => this.t.stats();
  close = (): Promise<void> => this.t.close();

  /** One entity with its groups included as listings ask (the official SDKs always pass `include`). */
  private async getEntity(
    collection: string,
    id: string,
    include: string | undefined,
    item: ResourceSchema,
  ): Promise<Resource | undefined> {
    const query = include === undefined ? "" : `?include=${include}`;
    const { status, json } = await this.send({
      method: "GET",
      path: `${collection}/${seg(id)}${query}`,
      mediaType: ENTITY_MEDIA,
      accept: [404],
      answer: oneAnswer(item),
    });
    return status === 404 ? undefined : json.data;
  }
}
