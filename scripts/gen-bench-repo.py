#!/usr/bin/env python3
"""Generate a realistic kustomize GitOps repository for benchmarks.

    scripts/gen-bench-repo.py OUT [--list] [--change OVERLAY]

Writes 10 application bases (Deployment with two containers, Service, ServiceAccount, HPA,
Ingress, PodDisruptionBudget, configMap/secret generators from files and literals), 4 components
(monitoring, tracing, high availability, network policy) and 5 overlays per application
(50 in all) using namespace, namePrefix, labels, commonAnnotations, images, replicas, generator
merges, strategic merge and JSON 6902 patches from files and inline, and components. A
`.kdelta.yaml` limits kdelta's targets to the 50 overlays. The output is the same on every run.

--apps N       write N applications instead of 10 (numbered copies: 200 give 1,000 overlays)
--list         print the overlay directories, one a line
--change DIR   modify one overlay (e.g. apps/cart/overlays/prod-eu) in place, as the second
               commit of a pull request would; used by scripts/bench.sh for the diff timing.
"""

import argparse
import pathlib
import sys

APPS = [
    ("accounts", 8080, "ghcr.io/acme/accounts"),
    ("billing", 8081, "ghcr.io/acme/billing"),
    ("cart", 8082, "ghcr.io/acme/cart"),
    ("catalog", 8083, "ghcr.io/acme/catalog"),
    ("checkout", 8084, "ghcr.io/acme/checkout"),
    ("gateway", 8443, "registry.acme.internal:5000/edge/gateway"),
    ("inventory", 8085, "ghcr.io/acme/inventory"),
    ("notifications", 8086, "ghcr.io/acme/notifications"),
    ("search", 9200, "ghcr.io/acme/search"),
    ("shipping", 8087, "ghcr.io/acme/shipping"),
]

# env name -> (replicas, tag, components, cluster domain)
ENVS = {
    "dev": (1, "main-3f2a9c1", ["monitoring"], "dev.acme.internal"),
    "staging": (2, "1.8.0-rc.2", ["monitoring", "tracing"], "staging.acme.internal"),
    "perf": (4, "1.8.0-rc.2", ["monitoring", "tracing", "network-policy"], "perf.acme.internal"),
    "prod-eu": (6, "1.7.3", ["monitoring", "tracing", "high-availability", "network-policy"], "eu.acme.com"),
    "prod-us": (8, "1.7.3", ["monitoring", "tracing", "high-availability", "network-policy"], "us.acme.com"),
}


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def base_files(name, port, image, index):
    files = {}
    files["kustomization.yaml"] = f"""apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
labels:
- pairs:
    app.kubernetes.io/name: {name}
    app.kubernetes.io/part-of: shop
  includeSelectors: true
resources:
- deployment.yaml
- service.yaml
- serviceaccount.yaml
- hpa.yaml
- pdb.yaml
- ingress.yaml
configMapGenerator:
- name: {name}-config
  files:
  - config/application.properties
  - config/logging.yaml
  literals:
  - SERVICE_NAME={name}
  - HTTP_PORT="{port}"
secretGenerator:
- name: {name}-credentials
  literals:
  - DB_USER={name}
  - DB_PASSWORD=change-me
images:
- name: {image}
  newTag: 1.0.0
"""
    files["deployment.yaml"] = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  annotations:
    acme.com/owner: team-{name}
spec:
  replicas: 1
  revisionHistoryLimit: 5
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  template:
    metadata:
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: "{port}"
    spec:
      serviceAccountName: {name}
      securityContext:
        runAsNonRoot: true
        fsGroup: 2000
      initContainers:
      - name: migrate
        image: {image}-migrations:1.0.0
        args: ["migrate", "--to=latest"]
        envFrom:
        - secretRef:
            name: {name}-credentials
      containers:
      - name: {name}
        image: {image}:0.0.0
        ports:
        - name: http
          containerPort: {port}
        env:
        - name: JAVA_OPTS
          value: -Xms256m -Xmx512m
        - name: DB_PASSWORD
          valueFrom:
            secretKeyRef:
              name: {name}-credentials
              key: DB_PASSWORD
        envFrom:
        - configMapRef:
            name: {name}-config
        readinessProbe:
          httpGet:
            path: /healthz/ready
            port: http
          periodSeconds: 5
        livenessProbe:
          httpGet:
            path: /healthz/live
            port: http
          initialDelaySeconds: 20
        resources:
          requests:
            cpu: 100m
            memory: 256Mi
          limits:
            memory: 512Mi
        volumeMounts:
        - name: config
          mountPath: /etc/{name}
          readOnly: true
        - name: tmp
          mountPath: /tmp
      - name: envoy
        image: envoyproxy/envoy:v1.29.{index}
        args: ["-c", "/etc/envoy/envoy.yaml"]
        ports:
        - name: admin
          containerPort: 9901
      volumes:
      - name: config
        configMap:
          name: {name}-config
      - name: tmp
        emptyDir: {{}}
"""
    files["service.yaml"] = f"""apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  type: ClusterIP
  ports:
  - name: http
    port: 80
    targetPort: http
  - name: admin
    port: 9901
    targetPort: admin
"""
    files["serviceaccount.yaml"] = f"""apiVersion: v1
kind: ServiceAccount
metadata:
  name: {name}
"""
    files["hpa.yaml"] = f"""apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {name}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {name}
  minReplicas: 1
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 70
"""
    files["pdb.yaml"] = f"""apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {name}
spec:
  maxUnavailable: 1
"""
    files["ingress.yaml"] = f"""apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {name}
  annotations:
    nginx.ingress.kubernetes.io/proxy-body-size: 8m
spec:
  ingressClassName: nginx
  rules:
  - host: {name}.placeholder.invalid
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: {name}
            port:
              name: http
"""
    files["config/application.properties"] = f"""# {name} defaults
server.port={port}
server.shutdown=graceful
management.endpoints.web.exposure.include=health,info,prometheus
spring.datasource.url=jdbc:postgresql://{name}-db:5432/{name}
spring.datasource.hikari.maximum-pool-size=10
feature.flags.source=configmap
"""
    files["config/logging.yaml"] = """level: info
format: json
fields:
  - timestamp
  - level
  - message
  - trace_id
"""
    return files


def component_files():
    comps = {}
    comps["monitoring"] = {
        "kustomization.yaml": """apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
labels:
- pairs:
    acme.com/monitored: "true"
patches:
- target:
    kind: Deployment
  patch: |-
    - op: add
      path: /spec/template/spec/containers/0/env/-
      value:
        name: METRICS_ENABLED
        value: "true"
""",
    }
    comps["tracing"] = {
        "kustomization.yaml": """apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
- path: tracing-env.yaml
  target:
    kind: Deployment
commonAnnotations:
  acme.com/tracing: otel
""",
        "tracing-env.yaml": """- op: add
  path: /spec/template/spec/containers/0/env/-
  value:
    name: OTEL_EXPORTER_OTLP_ENDPOINT
    value: http://otel-collector.observability:4317
- op: add
  path: /spec/template/spec/containers/0/env/-
  value:
    name: OTEL_TRACES_SAMPLER
    value: parentbased_traceidratio
""",
    }
    comps["high-availability"] = {
        "kustomization.yaml": """apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
- target:
    kind: Deployment
  patch: |-
    - op: add
      path: /spec/template/spec/topologySpreadConstraints
      value:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
    - op: add
      path: /spec/template/spec/priorityClassName
      value: business-critical
- target:
    kind: PodDisruptionBudget
  patch: |-
    - op: replace
      path: /spec/maxUnavailable
      value: 25%
""",
    }
    comps["network-policy"] = {
        "kustomization.yaml": """apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources:
- default-deny.yaml
""",
        "default-deny.yaml": """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny
spec:
  podSelector: {}
  policyTypes:
  - Ingress
  ingress:
  - from:
    - namespaceSelector:
        matchLabels:
          kubernetes.io/metadata.name: ingress-nginx
""",
    }
    return comps


def overlay_files(name, image, env):
    replicas, tag, components, domain = ENVS[env]
    region = env.split("-")[1] if env.startswith("prod-") else "eu"
    comps = "".join(f"- ../../../../components/{c}\n" for c in components)
    patches = f"""patches:
- path: resources.yaml
  target:
    kind: Deployment
    name: {name}
- target:
    kind: Ingress
    name: {name}
  patch: |-
    - op: replace
      path: /spec/rules/0/host
      value: {name}.{domain}
    - op: add
      path: /spec/tls
      value:
      - hosts:
        - {name}.{domain}
        secretName: {name}-tls
- target:
    kind: HorizontalPodAutoscaler
  patch: |-
    - op: replace
      path: /spec/minReplicas
      value: {replicas}
    - op: replace
      path: /spec/maxReplicas
      value: {replicas * 3}
"""
    patches += "- path: deployment-patch.yaml\n"
    files = {}
    files["kustomization.yaml"] = f"""apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: {name}-{env}
namePrefix: {env}-
resources:
- ../../base
components:
{comps}labels:
- pairs:
    acme.com/env: {env}
    acme.com/region: {region}
commonAnnotations:
  acme.com/managed-by: argocd
  acme.com/runbook: https://runbooks.acme.internal/{name}
images:
- name: {image}
  newTag: {tag}
- name: {image}-migrations
  newTag: {tag}
- name: envoyproxy/envoy
  newName: registry.acme.internal:5000/mirror/envoy
replicas:
- name: {name}
  count: {replicas}
configMapGenerator:
- name: {name}-config
  behavior: merge
  envs:
  - config.env
  literals:
  - ENVIRONMENT={env}
secretGenerator:
- name: {name}-credentials
  behavior: replace
  literals:
  - DB_USER={name}-{env}
  - DB_PASSWORD=sealed-elsewhere
{patches}"""
    files["config.env"] = f"""LOG_LEVEL={"debug" if env == "dev" else "info"}
CLUSTER_DOMAIN={domain}
DB_HOST={name}-db.{name}-{env}.svc
CACHE_TTL_SECONDS={30 * replicas}
"""
    limit_mem = 512 * (2 if env.startswith("prod") else 1)
    files["resources.yaml"] = f"""- op: replace
  path: /spec/template/spec/containers/0/resources
  value:
    requests:
      cpu: {100 * replicas}m
      memory: {limit_mem // 2}Mi
    limits:
      memory: {limit_mem}Mi
"""
    files["deployment-patch.yaml"] = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  template:
    spec:
      containers:
      - name: {name}
        env:
        - name: JAVA_OPTS
          value: -Xms{limit_mem // 2}m -Xmx{limit_mem}m
      - name: envoy
        resources:
          limits:
            memory: 128Mi
"""
    return files


def apps(count):
    """`count` applications: the ten above, then numbered copies of them (`cart-2`...)."""
    out = []
    for i in range(count):
        name, port, image = APPS[i % len(APPS)]
        copy = i // len(APPS)
        out.append((name if copy == 0 else f"{name}-{copy + 1}", port, image))
    return out


def generate(out, count):
    write(out, ".kdelta.yaml", "include:\n  - apps/*/overlays/*\n")
    for comp, files in component_files().items():
        for rel, text in files.items():
            write(out, f"components/{comp}/{rel}", text)
    for index, (name, port, image) in enumerate(apps(count)):
        for rel, text in base_files(name, port, image, index).items():
            write(out, f"apps/{name}/base/{rel}", text)
        for env in ENVS:
            for rel, text in overlay_files(name, image, env).items():
                write(out, f"apps/{name}/overlays/{env}/{rel}", text)


def overlays(count):
    return [f"apps/{name}/overlays/{env}" for name, _, _ in apps(count) for env in ENVS]


def change(out, overlay):
    """A pull request's edit: bump one overlay's replicas and a config value."""
    kust = out / overlay / "kustomization.yaml"
    text = kust.read_text()
    if "  count: " not in text:
        sys.exit(f"{overlay}: no replicas entry to change")
    head, _, rest = text.partition("  count: ")
    count, _, tail = rest.partition("\n")
    kust.write_text(f"{head}  count: {int(count) + 1}\n{tail}")
    env = out / overlay / "config.env"
    env.write_text(env.read_text() + "FEATURE_NEW_CHECKOUT=true\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--change", metavar="OVERLAY")
    parser.add_argument(
        "--apps", type=int, default=len(APPS), help="applications to write (5 overlays each)"
    )
    parser.add_argument(
        "--list", action="store_true", help="print the overlay directories, one a line"
    )
    args = parser.parse_args()
    if args.change:
        change(args.out, args.change)
    else:
        generate(args.out, args.apps)
    if args.list:
        print("\n".join(overlays(args.apps)))


if __name__ == "__main__":
    main()
