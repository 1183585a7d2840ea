import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ConfigCommand, knownVariables, loadConfig } from "@longrun/cli";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

// infra/k8s/longrun.yaml checked against the CLI's schema and the deployment's needs (no cluster here).

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string; optional?: boolean } }>;
  ports?: Array<{ containerPort: number }>;
  readinessProbe?: { httpGet?: { path: string; port: number } };
  livenessProbe?: { httpGet?: { path: string; port: number } };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}

interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    accessModes?: string[];
    ports?: Array<{ port: number; targetPort: number }>;
    template?: {
      spec: {
        containers: Container[];
        terminationGracePeriodSeconds?: number;
        securityContext?: { runAsNonRoot?: boolean };
        volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }>;
      };
    };
  };
}

const manifests = parseAllDocuments(
  readFileSync(fileURLToPath(new URL("../../infra/k8s/longrun.yaml", import.meta.url)), "utf8"),
).map((document) => document.toJS() as Manifest);

const byName = (kind: string, name: string) =>
  manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
const configMap = byName("ConfigMap", "longrun")?.data ?? {};
const longrunContainers = manifests.flatMap((manifest) =>
  (manifest.spec?.template?.spec.containers ?? [])
    .filter((container) => container.image.startsWith("longrun"))
    .map((container) => ({ manifest, container })),
);

/** A container's environment: its ConfigMap, its own env, and a stand-in for the documented secret. */
function environment(container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) Object.assign(env, byName("ConfigMap", source.configMapRef.name)?.data ?? {});
    if (source.secretRef && !source.secretRef.optional) env.LONGRUN_TOKEN = "secret-token-of-enough-length";
  }
  for (const entry of container.env ?? []) env[entry.name] = entry.value ?? "";
  return env;
}

describe("infra/k8s/longrun.yaml", () => {
  it("has redis, a libSQL server, the sim, servers and workers", () => {
    const deployments = manifests.filter((manifest) => /Deployment|StatefulSet/.test(manifest.kind));
    expect(deployments.map((manifest) => manifest.metadata.name).sort()).toEqual([
      "longrun-libsql",
      "longrun-redis",
      "longrun-server",
      "longrun-sim",
      "longrun-worker",
    ]);
  });

  it("every longrun container's environment is valid for its command and known to the CLI", () => {
    const known = new Set<string>(knownVariables());
    expect(longrunContainers.length).toBe(3);
    for (const { manifest, container } of longrunContainers) {
      const env = environment(container);
      for (const name of Object.keys(env))
        expect(known, `${manifest.metadata.name}: ${name}`).toContain(name);
      const command = container.args?.[0] ?? "start";
      if (command === "serve" || command === "worker") {
        expect(() => loadConfig(env, command as ConfigCommand), manifest.metadata.name).not.toThrow();
      }
    }
  });

  it("URLs in the ConfigMap name services that exist, on their ports", () => {
    for (const name of ["REDIS_URL", "DATABASE_URL", "LONGRUN_SIM_URL"]) {
      const url = new URL(configMap[name] ?? "");
      const service = byName("Service", url.hostname);
      expect(service, `${name} → ${url.hostname}`).toBeDefined();
      expect(service?.spec?.ports?.map((port) => port.port)).toContain(Number(url.port));
    }
  });

  it("servers and workers share one ReadWriteMany volume at the data dir", () => {
    expect(byName("PersistentVolumeClaim", "longrun-data")?.spec?.accessModes).toEqual(["ReadWriteMany"]);
    for (const name of ["longrun-server", "longrun-worker"]) {
      const pod = byName("Deployment", name)?.spec?.template?.spec;
      const volume = pod?.volumes?.find((entry) => entry.persistentVolumeClaim?.claimName === "longrun-data");
      const mount = pod?.containers[0]?.volumeMounts?.find((entry) => entry.name === volume?.name);
      expect(mount?.mountPath, name).toBe(configMap.LONGRUN_DATA_DIR);
      expect(pod?.securityContext?.runAsNonRoot).toBe(true);
    }
  });

  it("servers: readiness on /readyz, liveness on /healthz, on the port they listen on", () => {
    const server = byName("Deployment", "longrun-server")?.spec?.template?.spec.containers[0];
    const port = Number(environment(server as Container).PORT);
    expect(server?.ports?.[0]?.containerPort).toBe(port);
    expect(server?.readinessProbe?.httpGet).toEqual({ path: "/readyz", port });
    expect(server?.livenessProbe?.httpGet).toEqual({ path: "/healthz", port });
  });

  it("workers get longer to stop than their drain", () => {
    const pod = byName("Deployment", "longrun-worker")?.spec?.template?.spec;
    const drainMs = Number(environment(pod?.containers[0] as Container).LONGRUN_WORKER_DRAIN_MS);
    expect(drainMs).toBeGreaterThan(0);
    expect((pod?.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(drainMs + 5_000);
  });
});
