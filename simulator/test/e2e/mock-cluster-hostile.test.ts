// The mock cluster (`cincy mock-cluster`, a process) against clients that misbehave or are killed:
// watchers that stop reading, a kill -9 in a stream of writes, bodies and selectors the API server
// refuses, objects in namespaces that do not exist, and the modes of the files that hold its Secrets.
// kubectl plays the client wherever a real one would send the request. The state file after a crash, read
// in this process, is in simulator/test/service/apiserver/stateFile.test.ts.
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import * as k8s from '@kubernetes/client-node';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { WATCH_BACKLOG_BYTES } from '@cincy/simulator/apiserver/server';
import { useCleanup } from '../../../test/support/cli.js';
import { kubectl, kubectlAvailable } from '../../../test/support/kubectl.js';
import { serveMock, type Mock } from '../../../test/support/mock.js';

const cleanup = useCleanup();
const MiB = 1024 * 1024;

async function start(
  dir = cleanup.dir(),
  env?: Record<string, string>,
): Promise<Mock & { dir: string; state: string }> {
  const state = join(dir, 'state.json');
  return { ...(await serveMock(['--state', state], dir, cleanup, env)), dir, state };
}

/** A Status, or an object, as the mock answers. */
interface Answer {
  message?: string;
  metadata: { name: string };
}

/** A request as any HTTP client sends it, with the mock's CA and token: for bodies kubectl would not send. */
async function api(m: Mock, method: string, path: string, body?: unknown): Promise<{ status: number; json: Answer }> {
  const dispatcher = new Agent({ connect: { ca: Buffer.from(m.kc.getCurrentCluster()!.caData!, 'base64') } });
  cleanup.add(() => dispatcher.destroy());
  const res = await request(`${m.url}${path}`, {
    method: method as 'GET',
    dispatcher,
    headers: {
      authorization: `Bearer ${m.kc.getCurrentUser()!.token}`,
      'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: JSON.parse(text) as Answer };
}

const until = async (what: string, ok: () => boolean, ms = 30_000): Promise<void> => {
  for (const end = Date.now() + ms; !ok(); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
};

/** A watch over a raw TLS connection that reads the response's headers, then nothing more until resumed. */
async function stalledWatch(m: Mock, path: string): Promise<{ socket: TLSSocket; drain(): Promise<number> }> {
  const { hostname, port } = new URL(m.url);
  const socket = connect({
    host: hostname,
    port: Number(port),
    ca: Buffer.from(m.kc.getCurrentCluster()!.caData!, 'base64'),
  });
  cleanup.add(() => socket.destroy());
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => {}); // a reset is how a dropped watcher may end
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${m.kc.getCurrentUser()!.token}\r\n\r\n`,
  );
  let head = '';
  const onHead = (b: Buffer): void => void (head += b.toString('latin1'));
  socket.on('data', onHead);
  await until('the watch to answer', () => head.includes('\r\n\r\n'));
  socket.off('data', onHead);
  socket.pause();
  expect(head).toMatch(/^HTTP\/1\.1 200/);
  return {
    socket,
    /** Reads what the server sent until it closes the connection; the bytes read. */
    async drain() {
      let bytes = 0;
      socket.on('data', (b: Buffer) => (bytes += b.length));
      socket.resume();
      await until('the server to close the stalled watch', () => closed, 60_000);
      return bytes;
    },
  };
}

/** The resident memory of a process now (VmRSS) or at its peak (VmHWM), in bytes (Linux). */
const memory = (pid: number, which: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`${which}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('mock cluster, hostile clients', () => {
  it('reliability finding 10: watchers that stop reading are dropped past the backlog bound, and memory stays bounded, while a reading watcher gets every event', async () => {
    // The heap is capped (192 MiB; a process with the leak this guards against holds 600 MiB): a collection
    // comes before garbage passes the cap, so the peak measures what the process holds, not how far
    // garbage piled up before a collection, which depended on the machine's load (a loaded run measured
    // 286 MiB against a bound of 280 uncapped, 234 and 290 on two quiet ones; about 130 capped).
    const m = await start(undefined, { NODE_OPTIONS: '--max-old-space-size=192' });
    const core = m.kc.makeApiClient(k8s.CoreV1Api);
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'big' } } });
    const path = `/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dbig&resourceVersion=${created.metadata!.resourceVersion}`;
    const stalled = await Promise.all(Array.from({ length: 10 }, () => stalledWatch(m, path)));
    let seen = 0;
    const reader = await new k8s.Watch(m.kc).watch(
      '/api/v1/namespaces/default/configmaps',
      { fieldSelector: 'metadata.name=big', resourceVersion: created.metadata!.resourceVersion },
      (type) => void (type === 'MODIFIED' && seen++),
      () => undefined,
    );
    cleanup.add(() => reader.abort());
    const before = memory(m.child.pid!, 'VmHWM');
    const patches = 60;
    for (let i = 0; i < patches; i++) {
      await core.patchNamespacedConfigMap(
        { namespace: 'default', name: 'big', body: { data: { blob: String(i % 10).repeat(MiB) } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await until(`the reading watcher to see patch ${i + 1}`, () => seen === i + 1);
    }
    const received = await Promise.all(stalled.map((w) => w.drain()));
    // Each stalled watcher got what its socket buffers and the backlog held when it was dropped, not every event.
    for (const bytes of received) expect(bytes).toBeLessThan(patches * MiB);
    // What the stalled watchers may hold at most, and room for the 60 MiB of events the history keeps.
    const growth = memory(m.child.pid!, 'VmHWM') - before;
    console.log(`peak growth with 10 stalled watchers: ${Math.round(growth / MiB)} MiB`);
    expect(m.child.exitCode).toBeNull(); // not ended by its heap limit
    expect(growth).toBeLessThan(10 * WATCH_BACKLOG_BYTES + 100 * MiB);
    expect(seen).toBe(patches);
    const get = await kubectl(m.kubeconfig, ['get', 'configmap', 'big', '-n', 'default', '-o', 'name']);
    expect(get).toMatchObject({ code: 0, stdout: 'configmap/big\n' });
  }, 180_000);

  it('reliability finding 10: a watch that starts with more objects than the backlog bound gets them all and stays open', async () => {
    const m = await start();
    const core = m.kc.makeApiClient(k8s.CoreV1Api);
    const count = Math.ceil((2 * WATCH_BACKLOG_BYTES) / MiB);
    for (let i = 0; i < count; i++)
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `big-${i}` }, data: { blob: 'x'.repeat(MiB) } },
      });
    const events: string[] = [];
    let ended = false;
    const watch = await new k8s.Watch(m.kc).watch(
      '/api/v1/namespaces/default/configmaps',
      {}, // no resourceVersion: every object first, as ADDED
      (type, o: k8s.V1ConfigMap) => events.push(`${type}:${o.metadata!.name}`),
      () => (ended = true),
    );
    cleanup.add(() => watch.abort());
    await until(`${count} ADDED events`, () => events.length === count);
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'big-0' });
    await until('the DELETED event', () => events.length === count + 1);
    expect(events.at(-1)).toBe('DELETED:big-0');
    expect(ended).toBe(false);
  }, 120_000);

  it('reliability finding 10: a kill -9 in a stream of creates loses none that was acknowledged', async () => {
    const dir = cleanup.dir();
    const acknowledged = new Set<string>();
    for (const round of [1, 2]) {
      const m = await start(dir);
      const core = m.kc.makeApiClient(k8s.CoreV1Api);
      let n = 0;
      const writer = async (): Promise<void> => {
        for (;;) {
          const name = `r${round}-${n++}`;
          try {
            await core.createNamespacedConfigMap({
              namespace: 'default',
              body: { metadata: { name }, data: { n: name } },
            });
          } catch {
            return; // the server is gone
          }
          acknowledged.add(name);
        }
      };
      const writers = Array.from({ length: 8 }, writer);
      await until('300 acknowledged creates', () => acknowledged.size >= round * 300);
      m.child.kill('SIGKILL');
      await Promise.all(writers);
    }
    const m = await start(dir);
    const names = new Set(
      (await m.kc.makeApiClient(k8s.CoreV1Api).listNamespacedConfigMap({ namespace: 'default' })).items.map(
        (c) => c.metadata!.name!,
      ),
    );
    const lost = [...acknowledged].filter((n) => !names.has(n));
    expect(lost).toEqual([]);
    expect(acknowledged.size).toBeGreaterThanOrEqual(600);
  }, 180_000);
});

describe.runIf(kubectlAvailable())('mock cluster, bad input through kubectl', () => {
  it('reliability finding 10: a merge patch with metadata null is a 400 naming the missing name, not a 500, and changes nothing', async () => {
    const m = await start();
    expect(
      (await kubectl(m.kubeconfig, ['create', 'configmap', 'x', '-n', 'default', '--from-literal=k=v'])).code,
    ).toBe(0);
    const patched = await kubectl(m.kubeconfig, [
      'patch',
      'configmap',
      'x',
      '-n',
      'default',
      '--type',
      'merge',
      '-p',
      '{"metadata":null}',
    ]);
    expect(patched.code).not.toBe(0);
    expect(patched.stderr).toContain(
      'Error from server (BadRequest): the name of the object (x based on URL) was undeterminable: name must be provided',
    );
    const renamed = await kubectl(m.kubeconfig, [
      'patch',
      'configmap',
      'x',
      '-n',
      'default',
      '--type',
      'merge',
      '-p',
      '{"metadata":{"name":"y"}}',
    ]);
    expect(renamed.stderr).toContain('the name of the object (y) does not match the name on the URL (x)');
    // A patched object the decoder cannot read is a 422 on the patch, as the API server answers.
    const typed = await api(m, 'PATCH', '/api/v1/namespaces/default/configmaps/x', { metadata: { labels: 'a' } });
    expect(typed.status).toBe(422);
    expect(typed.json.message).toContain('metadata.labels must be an object of strings, not a string');
    const after = await kubectl(m.kubeconfig, [
      'get',
      'configmap',
      'x',
      '-n',
      'default',
      '-o',
      'jsonpath={.metadata.name} {.data.k}',
    ]);
    expect(after).toMatchObject({ code: 0, stdout: 'x v' });
  }, 60_000);

  it('reliability finding 10: label selectors are parsed by the real grammar: `constructor` selects only objects with that key, `(((` is a 400', async () => {
    const m = await start();
    for (const [name, label] of [
      ['with', 'constructor=yes'],
      ['without', 'team=a'],
    ]) {
      expect((await kubectl(m.kubeconfig, ['create', 'configmap', name!, '-n', 'default'])).code).toBe(0);
      expect((await kubectl(m.kubeconfig, ['label', 'configmap', name!, '-n', 'default', label!])).code).toBe(0);
    }
    const select = (selector: string): Promise<{ code: number; stdout: string; stderr: string }> =>
      kubectl(m.kubeconfig, ['get', 'configmaps', '-n', 'default', '-l', selector, '-o', 'name']);
    expect((await select('constructor')).stdout).toBe('configmap/with\n');
    expect((await select('toString')).stdout).toBe('');
    expect((await select('!constructor,team')).stdout).toBe('configmap/without\n');
    expect((await select('team in (a,b),constructor notin (yes)')).stdout).toBe('configmap/without\n');
    expect((await select('constructor!=yes,team')).stdout).toBe('configmap/without\n');
    for (const [selector, message] of [
      ['(((', "found '(', expected: !, identifier, or 'end of string'"],
      ['a in (b', "unable to parse requirement: found 'end of string', expected: ',', ')' or identifier"],
      ['a=b=c', "found '=', expected: ',' or 'end of string'"],
      ['a,', "found 'end of string', expected: identifier after ','"],
      ['-a', 'unable to parse requirement: Invalid value: "-a": name part must consist of alphanumeric characters'],
      ['a>b', "for 'Gt', 'Lt' operators, the value must be an integer"],
    ]) {
      const r = await select(selector!);
      expect(r.code, selector).not.toBe(0);
      expect(r.stderr, selector).toContain('Error from server (BadRequest)');
      expect(r.stderr, selector).toContain(message);
    }
    const fields = await kubectl(m.kubeconfig, ['get', 'configmaps', '-n', 'default', '--field-selector', 'spec.x=1']);
    expect(fields.stderr).toContain('Error from server (BadRequest)');
    expect(fields.stderr).toContain(
      '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  }, 60_000);

  it("reliability finding 10: names that break their kind's rule are a 422 naming metadata.name, names that are not strings a 400", async () => {
    const m = await start();
    const bad = await kubectl(m.kubeconfig, ['create', 'configmap', 'Bad_Name', '-n', 'default']);
    expect(bad.stderr).toContain(
      'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain',
    );
    const ns = await kubectl(m.kubeconfig, ['create', 'namespace', 'a.b']);
    expect(ns.stderr).toContain(
      'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label',
    );
    const svc = await kubectl(m.kubeconfig, ['create', 'service', 'clusterip', '1abc', '-n', 'default', '--tcp=80:80']);
    expect(svc.stderr).toContain('Service "1abc" is invalid: metadata.name: Invalid value: "1abc": a DNS-1035 label');
    const role = await kubectl(m.kubeconfig, [
      'create',
      'clusterrole',
      'system:openshift:reader',
      '--verb=get',
      '--resource=nodes',
    ]);
    expect(role).toMatchObject({ code: 0 }); // RBAC names are path segments: colons are fine
    const labels = await kubectl(
      m.kubeconfig,
      ['create', '-f', '-', '--validate=false'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'ok', namespace: 'default', labels: { 'a/b/c': 'x', k: 'not ok' } },
      }),
    );
    // kubectl lists the causes of a 422, one line each
    expect(labels.stderr).toContain('The ConfigMap "ok" is invalid: \n* metadata.labels: Invalid value: "a/b/c": ');
    expect(labels.stderr).toContain('\n* metadata.labels: Invalid value: "not ok": a valid label must be');
    for (const name of [5, { a: 1 }, ['x'], true]) {
      const r = await api(m, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } });
      expect(r.status, JSON.stringify(name)).toBe(400);
      expect(r.json.message).toMatch(
        /^ConfigMap in version "v1" cannot be handled as a ConfigMap: metadata\.name must be a string, not an? \w+$/,
      );
    }
    const missing = await api(m, 'POST', '/api/v1/namespaces/default/configmaps', { data: {} });
    expect(missing).toMatchObject({
      status: 422,
      json: { reason: 'Invalid', details: { causes: [{ field: 'metadata.name', reason: 'FieldValueRequired' }] } },
    });
    const generated = await api(m, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { generateName: 'job-' },
    });
    expect(generated.status).toBe(201);
    expect(generated.json.metadata.name).toMatch(/^job-[a-z0-9]{5}$/);
    const list = await kubectl(m.kubeconfig, ['get', 'configmaps', '-n', 'default', '-o', 'name']);
    expect(list.stdout.split('\n').filter(Boolean)).toEqual([`configmap/${generated.json.metadata.name}`]);
  }, 60_000);

  it('reliability finding 10: nothing is created in a namespace that does not exist, every namespace the mock uses exists, and a deleted namespace takes its objects', async () => {
    const m = await start();
    const r = await kubectl(m.kubeconfig, ['create', 'configmap', 'x', '-n', 'nope']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('namespaces "nope" not found');
    expect((await kubectl(m.kubeconfig, ['get', 'configmaps', '-A', '-o', 'name'])).stdout).not.toContain(
      'configmap/x',
    );
    expect((await kubectl(m.kubeconfig, ['create', 'namespace', 'nope'])).code).toBe(0);
    expect((await kubectl(m.kubeconfig, ['create', 'configmap', 'x', '-n', 'nope'])).code).toBe(0);
    const used = await kubectl(m.kubeconfig, [
      'get',
      'configmaps,deployments,daemonsets,jobs,secrets,serviceaccounts,services,roles,rolebindings',
      '-A',
      '-o',
      'jsonpath={range .items[*]}{.metadata.namespace}{"\\n"}{end}',
    ]);
    const namespaces = await kubectl(m.kubeconfig, [
      'get',
      'namespaces',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}',
    ]);
    const existing = new Set(namespaces.stdout.split('\n'));
    const missing = [...new Set(used.stdout.split('\n').filter(Boolean))].filter((n) => !existing.has(n));
    expect(missing).toEqual([]);
    expect(used.stdout).toContain('openshift-config'); // the scenario and clock ConfigMaps
    expect((await kubectl(m.kubeconfig, ['delete', 'namespace', 'nope'])).code).toBe(0);
    expect((await kubectl(m.kubeconfig, ['get', 'configmaps', '-A', '-o', 'name'])).stdout).not.toContain(
      'configmap/x',
    );
  }, 60_000);

  it('reliability finding 10: the state file and its journal, which hold Secrets, are readable by their owner only, and made so when they were not', async () => {
    const dir = cleanup.dir();
    const m = await start(dir);
    expect(
      (
        await kubectl(m.kubeconfig, [
          'create',
          'secret',
          'generic',
          'pw',
          '-n',
          'default',
          '--from-literal=password=hunter2',
        ])
      ).code,
    ).toBe(0);
    const mode = (f: string): string => (statSync(f).mode & 0o777).toString(8);
    await m.stop(); // writes the snapshot
    expect(readFileSync(m.state, 'utf8')).toContain(Buffer.from('hunter2').toString('base64'));
    expect(mode(m.state)).toBe('600');
    expect(mode(`${m.state}.journal`)).toBe('600'); // where each change goes first
    for (const f of [m.state, `${m.state}.journal`, `${m.state}.token`]) chmodSync(f, 0o644);
    const again = await start(dir);
    for (const f of [m.state, `${m.state}.journal`, `${m.state}.token`]) expect(mode(f), f).toBe('600');
    const secret = await kubectl(again.kubeconfig, [
      'get',
      'secret',
      'pw',
      '-n',
      'default',
      '-o',
      'jsonpath={.data.password}',
    ]);
    expect(Buffer.from(secret.stdout, 'base64').toString()).toBe('hunter2');
  }, 60_000);
});
