import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  type ComposeFile,
  type ComposeService,
  type ImageDefaults,
  longrunServices,
  serviceEnvironment,
} from "./compose-file.ts";

/** One compose service run as a local process. */
export interface LocalProcess {
  service: string;
  child: ChildProcess;
  output: string[];
  /** The local port standing in for the service's container port, if it has one. */
  port?: number;
}

/** A compose file's services as local processes, reachable on 127.0.0.1. */
export interface LocalDeployment {
  processes: LocalProcess[];
  /** Local port of each service that listens. */
  ports: Map<string, number>;
  /** Folder standing in for each named volume. */
  volumes: Map<string, string>;
  /** The libSQL file standing in for the libSQL server. */
  databaseUrl: string;
  /** The environment each longrun process got, by service. */
  environments: Map<string, Record<string, string>>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The port a service listens on inside its container (`expose`, else the target of `ports`). */
function containerPort(service: ComposeService): string | undefined {
  const exposed = service.expose?.[0];
  if (exposed !== undefined) return String(exposed);
  const published = service.ports?.[0];
  return published?.split(":").at(-1);
}

function isImage(service: ComposeService, name: RegExp): boolean {
  return name.test(service.image ?? "") && !service.build;
}

/** Services in start order: each after the ones it depends on. */
function startOrder(compose: ComposeFile): string[] {
  const order: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`compose: depends_on cycle ${[...path, name].join(" → ")}`);
    const dependsOn = compose.services[name]?.depends_on ?? [];
    for (const dependency of Array.isArray(dependsOn) ? dependsOn : Object.keys(dependsOn))
      visit(dependency, [...path, name]);
    order.push(name);
  };
  for (const name of Object.keys(compose.services)) visit(name, []);
  return order;
}

function track(service: string, child: ChildProcess, port?: number): LocalProcess {
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on("line", (line) => output.push(line));
  }
  return { service, child, output, ...(port === undefined ? {} : { port }) };
}

/** Resolves once the process printed a line matching `ready`; rejects with its output if it exits first. */
function readyLine(local: LocalProcess, ready: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (local.output.some((line) => ready.test(line))) resolve();
    };
    local.child.stdout?.on("data", () => setImmediate(check));
    local.child.once("exit", (code, signal) =>
      reject(
        new Error(
          `${local.service} exited (${code ?? signal}) before it was ready:\n${local.output.join("\n")}`,
        ),
      ),
    );
    check();
  });
}

async function stopProcess(local: LocalProcess): Promise<void> {
  const { child } = local;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000).unref();
  await exited;
  clearTimeout(timer);
}

export interface StartOptions {
  /** The repository root, standing in for the image's WORKDIR. */
  repo: string;
  /** Scratch folder for volumes and the database file. */
  scratch: string;
  /** Instances per service (compose's `--scale`). */
  scale?: Record<string, number>;
}

/**
 * Starts every service of a compose file as local processes, as its containers would run: the image's
 * ENTRYPOINT and ENV for longrun services, each service's command and environment, service host names
 * mapped to 127.0.0.1 and container ports to free local ports, named volumes to folders, Redis as a
 * local redis-server and the libSQL server replaced by a libSQL file (no sqld here).
 */
export async function startComposeLocally(
  compose: ComposeFile,
  image: ImageDefaults,
  options: StartOptions,
): Promise<LocalDeployment> {
  const ports = new Map<string, number>();
  const volumes = new Map<string, string>();
  const databaseUrl = `file:${join(options.scratch, "libsql", "longrun.db")}`;
  for (const [name, service] of Object.entries(compose.services)) {
    if (containerPort(service) !== undefined) ports.set(name, await freePort());
  }
  for (const volume of Object.keys(compose.volumes ?? {})) {
    const dir = join(options.scratch, "volumes", volume);
    await mkdir(dir, { recursive: true });
    volumes.set(volume, dir);
  }
  const libsqlServices = new Set(
    Object.entries(compose.services)
      .filter(([, service]) => isImage(service, /libsql-server|sqld/))
      .map(([name]) => name),
  );

  /** A value as seen from this host instead of the compose network. */
  const localize = (value: string, name: string): string => {
    const service = compose.services[name] as ComposeService;
    if (URL.canParse(value) && /^[a-z]+:\/\//.test(value)) {
      const url = new URL(value);
      if (libsqlServices.has(url.hostname)) return databaseUrl;
      const port = ports.get(url.hostname);
      if (port !== undefined) return value.replace(`//${url.host}`, `//127.0.0.1:${port}`);
    }
    for (const mount of service.volumes ?? []) {
      const [volume = "", target = ""] = mount.split(":");
      const dir = volumes.get(volume);
      if (dir && (value === target || value.startsWith(`${target}/`)))
        return dir + value.slice(target.length);
    }
    const own = containerPort(service);
    if (own !== undefined && value === own) return String(ports.get(name));
    return value === "0.0.0.0" ? "127.0.0.1" : value;
  };

  const processes: LocalProcess[] = [];
  const environments = new Map<string, Record<string, string>>();
  const longrun = new Set(longrunServices(compose).map(([name]) => name));
  try {
    for (const name of startOrder(compose)) {
      const service = compose.services[name] as ComposeService;
      if (libsqlServices.has(name)) continue;
      if (isImage(service, /^redis(:|$)/)) {
        const port = ports.get(name) ?? (await freePort());
        const command = service.command ?? ["redis-server"];
        const child = spawn(
          command[0] ?? "redis-server",
          [...command.slice(1), "--port", String(port), "--bind", "127.0.0.1"],
          {
            stdio: ["ignore", "pipe", "pipe"],
          },
        );
        const local = track(name, child, port);
        processes.push(local);
        await readyLine(local, /Ready to accept connections/);
        continue;
      }
      if (!longrun.has(name))
        throw new Error(`compose service ${name} has no local stand-in (image ${service.image})`);
      const env = Object.fromEntries(
        Object.entries(serviceEnvironment(service, image)).map(([key, value]) => [
          key,
          localize(value, name),
        ]),
      );
      environments.set(name, env);
      const entrypoint = image.entrypoint.map((part) =>
        part.startsWith(`${image.workdir}/`) ? join(options.repo, part.slice(image.workdir.length)) : part,
      );
      const [program = "node", ...entryArgs] = entrypoint;
      const args = [...entryArgs, ...(service.command ?? image.cmd).map((arg) => localize(arg, name))];
      const ready = /listening on|processing jobs/;
      const instances = options.scale?.[name] ?? service.deploy?.replicas ?? 1;
      const started = Array.from({ length: instances }, () => {
        // A clean environment like a container's, plus what Node needs to run here.
        const child = spawn(program === "node" ? process.execPath : program, args, {
          cwd: options.repo,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
          stdio: ["ignore", "pipe", "pipe"],
        });
        const local = track(name, child, ports.get(name));
        processes.push(local);
        return readyLine(local, ready);
      });
      await Promise.all(started);
    }
  } catch (error) {
    await Promise.allSettled(processes.map(stopProcess));
    throw error;
  }
  return {
    processes,
    ports,
    volumes,
    databaseUrl,
    environments,
    async stop() {
      // Reverse start order: workers and servers before the services they use.
      for (const local of [...processes].reverse()) await stopProcess(local);
    },
  };
}
