#!/usr/bin/python3
"""Turns deploy/k8s's manifests into what `podman kube play` (podman 4.3) can run; used by scripts/kube-test.sh.

    /usr/bin/python3 deploy/k8s/podman-play.py PREFIX IMAGE OUTDIR MANIFEST.yaml...

PREFIX- goes before every name podman keeps machine-wide (workloads and so pods, Secrets, ConfigMaps,
claims), so two test runs on one machine do not collide; Service names (the DNS aliases) stay as they are,
each run has its own network. Writes into OUTDIR:
  claims.yaml         a PersistentVolumeClaim for each StatefulSet volumeClaimTemplate (named
                      PREFIX-TEMPLATE-STATEFULSET-0, as a cluster names the claim of pod 0)
  configmaps.yaml     the ConfigMaps, for `kube play --configmap` (kube play 4.3 looks a ConfigMap up only
                      in the played file or there)
  secret-NAME.yaml    each Secret with its `data` values decoded, for `podman secret create NAME FILE`
  NN-NAME.yaml        one workload per file, its image replaced by IMAGE; each pod K of a StatefulSet
                      becomes a Deployment of one (NAME-K when it has several), its volumes the claims of
                      pod K, env from the pod-index label given its value and $(VAR) in its command expanded
  plan.json           per workload: the file, the pod and container names kube play gives it, the
                      Service names that select it (for network aliases) and its probes
Everything kube play 4.3 does not implement is changed here, and only that (docs/k8s.md lists why):
  - StatefulSet: ignored by kube play (no pod, no error); its pods' index label, $(VAR) expansion likewise
  - Secret volumes: kube play writes the values still base64-encoded, so the test stores the Secrets itself
  - Service: ignored; the test gives each selected pod the Service's name as a DNS alias on its network
  - NetworkPolicy: ignored; reported, not enforced
  - containerPort: published on the host by kube play 4.3; removed
Before writing anything it checks what kube play cannot show: every Service and NetworkPolicy selects pods
of these manifests and opens only ports they declare (exit 1 with the reason otherwise).
"""
import base64
import copy
import json
import os
import sys

import yaml

ORDER = ["broker", "sample-feed", "persist", "filter", "format", "places", "forecast", "fetch", "gateway"]


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def check_selectors(workloads, services, policies):
    """What kube play cannot show, checked statically: every Service and NetworkPolicy selects pods of
    these manifests, and opens only ports those pods declare."""
    pods = [(w["metadata"]["name"], w["spec"]["template"]["metadata"].get("labels", {}),
             {p["containerPort"] for c in w["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])})
            for w in workloads]

    def matching(selector, what):
        found = [(n, ports) for n, labels, ports in pods if selects(selector, labels)]
        if not found:
            sys.exit(f"podman-play: {what} selects no pod of these manifests ({selector})")
        return found

    for s in services:
        for name, ports in matching(s["spec"].get("selector"), f"Service {s['metadata']['name']}"):
            for p in s["spec"].get("ports", []):
                if p.get("targetPort", p["port"]) not in ports:
                    sys.exit(f"podman-play: Service {s['metadata']['name']} targets port {p.get('targetPort', p['port'])}, "
                             f"which {name} does not declare")
    for np in policies:
        what = f"NetworkPolicy {np['metadata']['name']}"
        targets = matching(np["spec"]["podSelector"].get("matchLabels"), what)
        for rule in np["spec"].get("ingress", []):
            for peer in rule.get("from", []):
                matching(peer["podSelector"].get("matchLabels"), f"{what} (from)")
            for p in rule.get("ports", []):
                for name, ports in targets:
                    if p["port"] not in ports:
                        sys.exit(f"podman-play: {what} opens port {p['port']}, which {name} does not declare")


POD_INDEX = "metadata.labels['apps.kubernetes.io/pod-index']"


def pod_of(template, index):
    """Pod `index` of a StatefulSet's template, as the cluster would run it: an env var taken from the
    pod-index label (Kubernetes 1.28+) gets its value, and `$(VAR)` in command and args is expanded
    from the container's literal env values (as the kubelet does; kube play 4.3 expands neither)."""
    template = copy.deepcopy(template)
    template.setdefault("metadata", {}).setdefault("labels", {})["apps.kubernetes.io/pod-index"] = str(index)
    for c in template["spec"]["containers"]:
        values = {}
        for e in c.get("env", []):
            if e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == POD_INDEX:
                del e["valueFrom"]
                e["value"] = str(index)
            if "value" in e:
                values[e["name"]] = e["value"]
        for key in ("command", "args"):
            expanded = []
            for word in c.get(key, []):
                for var, value in values.items():
                    word = word.replace(f"$({var})", value)
                expanded.append(word)
            if key in c:
                c[key] = expanded
    return template


def main():
    prefix, image, out = sys.argv[1] + "-", sys.argv[2], sys.argv[3]
    docs = []
    for path in sys.argv[4:]:
        with open(path) as f:
            docs += [d for d in yaml.safe_load_all(f) if d]
    os.makedirs(out, exist_ok=True)
    claims, configmaps, workloads, services, policies, ignored, secrets = [], [], [], [], [], [], []
    for d in docs:
        kind, name = d["kind"], d["metadata"]["name"]
        if kind in ("ConfigMap", "Secret", "Deployment", "StatefulSet"):
            name = d["metadata"]["name"] = prefix + name
        if kind == "ConfigMap":
            configmaps.append(d)
        elif kind == "Secret":
            decoded = {k: base64.b64decode(v).decode() for k, v in (d.get("data") or {}).items()}
            decoded.update(d.get("stringData") or {})
            plain = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
                     "type": d.get("type", "Opaque"), "data": decoded}
            with open(os.path.join(out, f"secret-{name}.yaml"), "w") as f:
                yaml.safe_dump(plain, f)
            secrets.append(name)
        elif kind == "Service":
            services.append(d)
        elif kind == "NetworkPolicy":
            policies.append(d)
            ignored.append(f"{kind}/{name}")
        elif kind == "Deployment":
            workloads.append(copy.deepcopy(d))
        elif kind == "StatefulSet":
            spec = d["spec"]
            replicas = spec.get("replicas", 1)
            for index in range(replicas):
                template = pod_of(spec["template"], index)
                for claim in spec.get("volumeClaimTemplates", []):
                    claim_name = f"{prefix}{claim['metadata']['name']}-{name[len(prefix):]}-{index}"
                    claims.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                   "metadata": {"name": claim_name, "labels": claim["metadata"].get("labels", {})},
                                   "spec": claim["spec"]})
                    template["spec"].setdefault("volumes", []).append(
                        {"name": claim["metadata"]["name"], "persistentVolumeClaim": {"claimName": claim_name}})
                metadata = copy.deepcopy(d["metadata"])
                if replicas > 1:
                    metadata["name"] = f"{name}-{index}"
                workloads.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata,
                                  "spec": {"replicas": 1, "selector": spec["selector"], "template": template},
                                  "converted_from": "StatefulSet"})
        else:
            ignored.append(f"{kind}/{name}")

    check_selectors(workloads, services, policies)
    with open(os.path.join(out, "claims.yaml"), "w") as f:
        yaml.safe_dump_all(claims, f)
    with open(os.path.join(out, "configmaps.yaml"), "w") as f:
        yaml.safe_dump_all(configmaps, f)
    rank = {prefix + n: i for i, n in enumerate(ORDER)}
    # A StatefulSet's pods (filter-0, filter-1) rank as the StatefulSet, in index order.
    workloads.sort(key=lambda w: (rank.get(w["metadata"]["name"], rank.get(w["metadata"]["name"].rsplit("-", 1)[0], len(ORDER))),
                                  w["metadata"]["name"]))
    plan = {"secrets": secrets, "ignored": ignored, "workloads": []}
    for i, w in enumerate(workloads):
        name = w["metadata"]["name"]
        converted = w.pop("converted_from", None)
        replicas = w["spec"].get("replicas", 1)
        if replicas != 1:
            sys.exit(f"podman-play: Deployment {name} has replicas: {replicas}; the test probes and uses one pod per workload")
        for v in w["spec"]["template"]["spec"].get("volumes", []):
            if "secret" in v:
                v["secret"]["secretName"] = prefix + v["secret"]["secretName"]
            if "configMap" in v:
                v["configMap"]["name"] = prefix + v["configMap"]["name"]
        pod_labels = w["spec"]["template"]["metadata"].get("labels", {})
        aliases = [s["metadata"]["name"] for s in services if selects(s["spec"].get("selector"), pod_labels)]
        pod = f"{name}-pod-0"  # kube play 4.3 names a Deployment's pod NAME-pod-0
        containers = []
        for c in w["spec"]["template"]["spec"]["containers"]:
            c["image"] = image
            # kube play 4.3 publishes every containerPort on the host (0.0.0.0, same number) when hostPort
            # is unset: the broker would be open to the network and two runs (or `isobar up`) would
            # collide. Pods reach each other's addresses without it.
            c.pop("ports", None)
            containers.append({"name": c["name"], "container": f"{pod}-{c['name']}",
                               "readiness": c.get("readinessProbe"), "liveness": c.get("livenessProbe")})
        path = os.path.join(out, f"{i + 1:02d}-{name}.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(w, f)
        plan["workloads"].append({"name": name[len(prefix):], "file": path, "pod": pod, "aliases": aliases,
                                  "converted_from": converted, "containers": containers})
    with open(os.path.join(out, "plan.json"), "w") as f:
        json.dump(plan, f, indent=1)


if __name__ == "__main__":
    main()
