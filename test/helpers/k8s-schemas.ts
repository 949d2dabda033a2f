/**
 * The Kubernetes OpenAPI schemas (package kubernetes-models) for every kind deploy/kubernetes
 * renders. `schemaProblem` says why an object does not validate, or undefined when it does; the
 * PrometheusRule (a custom resource) is checked for its shape only, its rules by promtool.
 */
import { ConfigMap, PersistentVolumeClaim, Secret, ServiceAccount } from "kubernetes-models/v1";
import { CronJob, Job } from "kubernetes-models/batch/v1";
import { Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import type { K8sObject } from "./kustomize.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  "v1/ConfigMap": ConfigMap,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "v1/Secret": Secret,
  "v1/ServiceAccount": ServiceAccount,
  "batch/v1/CronJob": CronJob,
  "batch/v1/Job": Job,
  "rbac.authorization.k8s.io/v1/Role": Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": RoleBinding,
};

export function schemaProblem(obj: K8sObject): string | undefined {
  const key = `${String(obj["apiVersion"])}/${String(obj["kind"])}`;
  if (key === "monitoring.coreos.com/v1/PrometheusRule") {
    const keys = Object.keys(obj).sort().join(",");
    if (keys !== "apiVersion,kind,metadata,spec") return `PrometheusRule with keys ${keys}`;
    return Object.keys(obj["spec"]).join(",") === "groups" ? undefined : "PrometheusRule spec is not groups";
  }
  const Model = MODELS[key];
  if (Model === undefined) return `${key} has no schema here`;
  try {
    new Model(obj).validate();
    return undefined;
  } catch (err) {
    return `${key} ${String(obj["metadata"]?.["name"])}: ${(err as Error).message}`;
  }
}
