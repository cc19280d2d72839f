"""Checks Kubernetes manifests without a cluster; run by scripts/k8s-validate.sh with the venv that
scripts/deps.sh k8s builds (.tools/k8s-venv: kubernetes-validate, whose package carries the JSON
schemas of Kubernetes 1.25 ... 1.37, so nothing is fetched at run time).

  k8s_validate.py check [--kube-version V]... [--rendered] [--k6-scripts DIR] FILE...
      every YAML document of every FILE:
        * parses, with no duplicate mapping keys (YAML would silently keep the last one)
        * is a Kubernetes object whose kind and apiVersion exist in each version V, and validates
          against that version's strict schema (an unknown or misspelt field is an error)
        * workload policy: every container has cpu and memory requests and a memory limit; the
          long-running ones (Deployment, StatefulSet) have readiness and liveness probes, a
          Deployment's also a startup probe; Tandem's own containers probe
          /actuator/health/readiness and /actuator/health/liveness on their port named
          management (the actuator's own port: on the API port a probe of a saturated pod waits
          behind its requests, and liveness restarts a pod that is only busy); a Redis container evicts
          (--maxmemory at most 0.8 of its memory limit, an allkeys- policy) instead of being
          OOM-killed
      --rendered: each FILE is a whole kustomize output, so references must resolve inside it:
        ConfigMaps, Secrets and their keys used by pods (volumes, envFrom, valueFrom), Service and
        PodDisruptionBudget selectors (some pod template must match) and named target ports,
        StatefulSet serviceNames, Ingress backends (Service and port); every tandem/grpc-service
        container gets SPRING_GRPC_SERVER_KEEPALIVE_CONNECTION_MAX_AGE (env or envFrom): without it a
        client keeps its connections, and so its resolved pods, for good, and pods added by a
        scale-out get none of its calls
      --k6-scripts DIR: some ConfigMap named tandem-k6-scripts* holds exactly DIR/*.js, byte for byte
  k8s_validate.py orphans DIR
      every *.yaml under DIR other than kustomization.yaml is listed in the resources of the
      kustomization.yaml of its directory (a manifest nobody applies is a mistake)

Exit status 1 when anything fails; each failure is printed as "ERROR <file>: <object>: <what>".
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml
from kubernetes_validate import utils as kv

WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicaSet"}
LONG_RUNNING = {"Deployment", "StatefulSet", "DaemonSet"}

errors: list[str] = []


def error(where: str, what: str) -> None:
    errors.append(f"ERROR {where}: {what}")


# ---------------------------------------------------------------- YAML without duplicate keys

class StrictLoader(yaml.SafeLoader):
    pass


def _mapping(loader: StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load(path: Path) -> list:
    try:
        return [d for d in yaml.load_all(path.read_text(), Loader=StrictLoader) if d is not None]
    except (yaml.YAMLError, OSError) as e:
        error(str(path), f"cannot be read as YAML: {e}")
        return []


def name_of(doc: dict) -> str:
    meta = doc.get("metadata") or {}
    return f"{doc.get('kind')}/{meta.get('name')}"


# ---------------------------------------------------------------- schema

def check_schema(where: str, doc: dict, versions: list[str]) -> None:
    for v in versions:
        try:
            kv.validate(doc, v, strict=True)
        except kv.ValidationError as e:
            path = ".".join(str(p) for p in e.path) or "(top level)"
            error(where, f"Kubernetes {kv.major_minor(v)} schema: {path}: {e.message}")
            return
        except kv.SchemaNotFoundError:
            error(where, f"Kubernetes {kv.major_minor(v)} has no schema for kind {doc.get('kind')} "
                         f"in {doc.get('apiVersion')} (misspelt, or an API that version does not serve)")
            return
        except kv.VersionNotSupportedError:
            error(where, f"kubernetes-validate has no schemas for Kubernetes {v}")
            return


# ---------------------------------------------------------------- workloads

def pod_template(doc: dict) -> dict | None:
    spec = doc.get("spec") or {}
    if doc.get("kind") == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec")) or {}
    return spec.get("template") if doc.get("kind") in WORKLOADS else None


def check_policy(where: str, doc: dict) -> None:
    tmpl = pod_template(doc)
    if not tmpl:
        return
    pod = tmpl.get("spec") or {}
    kind = doc["kind"]
    for c in (pod.get("initContainers") or []) + (pod.get("containers") or []):
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for what, present in (("requests.cpu", "cpu" in req), ("requests.memory", "memory" in req),
                              ("limits.memory", "memory" in lim)):
            if not present:
                error(where, f"container {c.get('name')}: no resources.{what}")
        if ":" not in str(c.get("image", "")).rsplit("/", 1)[-1]:
            error(where, f"container {c.get('name')}: image {c.get('image')!r} has no explicit tag")
        if str(c.get("image", "")).startswith("redis:"):
            check_redis_memory(where, c, lim.get("memory"))
    if kind not in LONG_RUNNING:
        return
    for c in pod.get("containers") or []:
        probes = ["readinessProbe", "livenessProbe"] + (["startupProbe"] if kind == "Deployment" else [])
        for p in probes:
            if p not in c:
                error(where, f"container {c.get('name')}: no {p}")
        if str(c.get("image", "")).startswith("tandem/"):
            for p, path in (("readinessProbe", "/actuator/health/readiness"),
                            ("livenessProbe", "/actuator/health/liveness")):
                got = ((c.get(p) or {}).get("httpGet") or {}).get("path")
                if p in c and got != path:
                    error(where, f"container {c.get('name')}: {p} should GET {path}, not {got}")
            for p in probes:
                port = ((c.get(p) or {}).get("httpGet") or {}).get("port")
                if p in c and port != "management":
                    error(where, f"container {c.get('name')}: {p} should use the port named management "
                                 f"(the actuator's own, on platform threads), not {port!r}")


BINARY_SUFFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
DECIMAL_SUFFIXES = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
REDIS_UNITS = {"kb": 2**10, "mb": 2**20, "gb": 2**30, "k": 10**3, "m": 10**6, "g": 10**9}


def kubernetes_bytes(quantity) -> int | None:
    """A memory quantity as Kubernetes reads it ("512Mi", "1G", "1048576"), or None if unparsable."""
    text = str(quantity)
    for suffixes in (BINARY_SUFFIXES, DECIMAL_SUFFIXES):
        for suffix, factor in suffixes.items():
            if text.endswith(suffix) and text[:-len(suffix)].isdigit():
                return int(text[:-len(suffix)]) * factor
    return int(text) if text.isdigit() else None


def redis_bytes(value: str) -> int | None:
    """A memory setting as redis.conf reads it ("384mb" is 384 MiB, "1g" 10^9), or None."""
    text = value.lower()
    for unit, factor in sorted(REDIS_UNITS.items(), key=lambda u: -len(u[0])):
        if text.endswith(unit) and text[:-len(unit)].isdigit():
            return int(text[:-len(unit)]) * factor
    return int(text) if text.isdigit() else None


def check_redis_memory(where: str, container: dict, limit) -> None:
    """A Redis with a memory limit must evict below it: without --maxmemory it grows until the
    kernel kills it, and the L2 cache restarts empty on every instance at once. Evicting is safe for
    the cache (a fill stores only over the claim its read saw: ClaimedFillTest), and an allkeys
    policy is due because a volatile one evicts nothing that has no TTL."""
    args = [str(a) for a in (container.get("command") or []) + (container.get("args") or [])]
    name = container.get("name")

    def setting(flag):
        return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None

    maxmemory, policy = setting("--maxmemory"), setting("--maxmemory-policy")
    limit_bytes = kubernetes_bytes(limit) if limit is not None else None
    if maxmemory is None or redis_bytes(maxmemory) in (None, 0):
        error(where, f"container {name}: Redis has no --maxmemory (it would be OOM-killed at its "
                     f"memory limit {limit} instead of evicting)")
    elif limit_bytes is not None and redis_bytes(maxmemory) > 0.8 * limit_bytes:
        error(where, f"container {name}: Redis --maxmemory {maxmemory} leaves under a fifth of its "
                     f"memory limit {limit} for buffers and fragmentation")
    if policy is None or not policy.startswith("allkeys-"):
        error(where, f"container {name}: Redis --maxmemory-policy {policy} is not an allkeys- policy")


# ---------------------------------------------------------------- references inside one render

def ns(d: dict) -> str:
    return (d.get("metadata") or {}).get("namespace", "")


def data_keys(d: dict) -> set[str]:
    return set((d.get("data") or {})) | set((d.get("binaryData") or {})) | set((d.get("stringData") or {}))


def check_refs(file: str, docs: list[dict]) -> None:
    objects = {(d.get("kind"), ns(d), (d.get("metadata") or {}).get("name")): d for d in docs}
    pods = []   # (namespace, labels, pod spec, where)
    for d in docs:
        tmpl = pod_template(d)
        if tmpl:
            pods.append((ns(d), (tmpl.get("metadata") or {}).get("labels") or {}, tmpl.get("spec") or {},
                         f"{file}: {name_of(d)}"))

    def need(kind, namespace, name, where, what, key=None, optional=False):
        obj = objects.get((kind, namespace, name))
        if obj is None:
            if not optional:
                error(where, f"{what}: no {kind} {name} in this render")
        elif key is not None and key not in data_keys(obj) and not optional:
            error(where, f"{what}: {kind} {name} has no key {key}")

    for namespace, _, spec, where in pods:
        for v in spec.get("volumes") or []:
            if "configMap" in v:
                need("ConfigMap", namespace, v["configMap"].get("name"), where, f"volume {v.get('name')}",
                     optional=v["configMap"].get("optional", False))
            if "secret" in v:
                need("Secret", namespace, v["secret"].get("secretName"), where, f"volume {v.get('name')}",
                     optional=v["secret"].get("optional", False))
        for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
            cw = f"container {c.get('name')}"
            for ef in c.get("envFrom") or []:
                for field, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                    if field in ef:
                        need(kind, namespace, ef[field].get("name"), where, f"{cw} envFrom",
                             optional=ef[field].get("optional", False))
            for e in c.get("env") or []:
                vf = e.get("valueFrom") or {}
                for field, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                    if field in vf:
                        ref = vf[field]
                        need(kind, namespace, ref.get("name"), where, f"{cw} env {e.get('name')}",
                             key=ref.get("key"), optional=ref.get("optional", False))

    def matching_pods(namespace, selector):
        return [p for p in pods if p[0] == namespace and selector
                and all(p[1].get(k) == v for k, v in selector.items())]

    for d in docs:
        where, kind, namespace = f"{file}: {name_of(d)}", d.get("kind"), ns(d)
        spec = d.get("spec") or {}
        if kind == "Service" and spec.get("selector"):
            matched = matching_pods(namespace, spec["selector"])
            if not matched:
                error(where, f"selector {spec['selector']} matches no pod template in this render")
            port_names = {p.get("name") for _, _, s, _ in matched
                          for c in s.get("containers") or [] for p in c.get("ports") or []}
            for p in spec.get("ports") or []:
                tp = p.get("targetPort")
                if isinstance(tp, str) and matched and tp not in port_names:
                    error(where, f"port {p.get('name')}: targetPort {tp!r} is no container port of the selected pods")
        if kind == "PodDisruptionBudget":
            sel = (spec.get("selector") or {}).get("matchLabels") or {}
            if not matching_pods(namespace, sel):
                error(where, f"selector {sel} matches no pod template in this render")
        if kind == "StatefulSet":
            need("Service", namespace, spec.get("serviceName"), where, "serviceName")
        if kind == "Ingress":
            for rule in spec.get("rules") or []:
                for path in (rule.get("http") or {}).get("paths") or []:
                    svc = (path.get("backend") or {}).get("service") or {}
                    target = objects.get(("Service", namespace, svc.get("name")))
                    if target is None:
                        error(where, f"path {path.get('path')}: no Service {svc.get('name')} in this render")
                        continue
                    port = svc.get("port") or {}
                    ports = (target.get("spec") or {}).get("ports") or []
                    if not any(p.get("name") == port.get("name") if "name" in port else p.get("port") == port.get("number")
                               for p in ports):
                        error(where, f"path {path.get('path')}: Service {svc.get('name')} has no port {port}")


GRPC_MAX_AGE = "SPRING_GRPC_SERVER_KEEPALIVE_CONNECTION_MAX_AGE"


def check_grpc_max_age(file: str, docs: list[dict]) -> None:
    configmaps = {(ns(d), (d.get("metadata") or {}).get("name")): d for d in docs if d.get("kind") == "ConfigMap"}
    for d in docs:
        tmpl = pod_template(d)
        if not tmpl:
            continue
        namespace = ns(d)
        for c in (tmpl.get("spec") or {}).get("containers") or []:
            if not str(c.get("image", "")).startswith("tandem/grpc-service"):
                continue
            names = {e.get("name") for e in c.get("env") or []}
            for ef in c.get("envFrom") or []:
                cm = configmaps.get((namespace, (ef.get("configMapRef") or {}).get("name")))
                if cm is not None:
                    names |= {(ef.get("prefix") or "") + k for k in data_keys(cm)}
            if GRPC_MAX_AGE not in names:
                error(f"{file}: {name_of(d)}", f"container {c.get('name')}: no {GRPC_MAX_AGE} "
                      "(clients would never re-resolve, so pods added by a scale-out get none of their calls)")


def check_k6_scripts(file: str, docs: list[dict], directory: Path) -> None:
    maps = [d for d in docs if d.get("kind") == "ConfigMap"
            and str((d.get("metadata") or {}).get("name", "")).startswith("tandem-k6-scripts")]
    if len(maps) != 1:
        error(file, f"expected one ConfigMap tandem-k6-scripts*, found {len(maps)}")
        return
    data = maps[0].get("data") or {}
    where = f"{file}: {name_of(maps[0])}"
    scripts = sorted(directory.glob("*.js"))
    if not scripts:
        error(where, f"no *.js in {directory}")
    for script in scripts:
        if script.name not in data:
            error(where, f"{script} is not in the ConfigMap (add it to {directory}/kustomization.yaml)")
        elif data[script.name] != script.read_text():
            error(where, f"{script.name} differs from {script}")
    for name in sorted(set(data) - {s.name for s in scripts}):
        error(where, f"{name} has no file in {directory}")


# ---------------------------------------------------------------- commands

def cmd_check(args) -> None:
    versions = args.kube_version or ["1.30.0", "1.37.0"]
    count = 0
    for f in args.files:
        path = Path(f)
        docs = load(path)
        if not docs and not any(e.startswith(f"ERROR {f}:") for e in errors):
            error(f, "holds no YAML document")
        good = []
        for i, doc in enumerate(docs):
            if not isinstance(doc, dict) or not all(k in doc for k in ("apiVersion", "kind", "metadata")):
                error(f, f"document {i + 1} is not a Kubernetes object (apiVersion, kind, metadata)")
                continue
            if not (doc.get("metadata") or {}).get("name"):
                error(f, f"document {i + 1} ({doc.get('kind')}) has no metadata.name")
                continue
            where = f"{f}: {name_of(doc)}"
            check_schema(where, doc, versions)
            check_policy(where, doc)
            good.append(doc)
            count += 1
        if args.rendered:
            check_refs(f, good)
            check_grpc_max_age(f, good)
        if args.k6_scripts:
            check_k6_scripts(f, good, Path(args.k6_scripts))
    if not errors:
        print(f"k8s_validate: {count} objects in {len(args.files)} files valid against Kubernetes "
              f"{', '.join(kv.major_minor(v) for v in versions)} (strict schemas)"
              + ("; references resolve" if args.rendered else "")
              + ("; k6 scripts match " + args.k6_scripts if args.k6_scripts else ""))


def cmd_orphans(args) -> None:
    root = Path(args.dir)
    used = set()
    for k in root.rglob("kustomization.yaml"):
        for doc in load(k):
            for r in (doc or {}).get("resources") or []:
                used.add((k.parent / r).resolve())
    files = [p for p in root.rglob("*.yaml") if p.name != "kustomization.yaml"]
    for p in files:
        if p.resolve() not in used:
            error(str(p), "not listed in the resources of any kustomization.yaml")
    if not errors:
        print(f"k8s_validate: all {len(files)} manifests under {root} are used by a kustomization")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--kube-version", action="append")
    c.add_argument("--rendered", action="store_true")
    c.add_argument("--k6-scripts")
    c.add_argument("files", nargs="+")
    o = sub.add_parser("orphans")
    o.add_argument("dir")
    args = ap.parse_args()
    {"check": cmd_check, "orphans": cmd_orphans}[args.cmd](args)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
