// The OpenAPI documents of the mock cluster, made from its kinds' declarations: /openapi/v3 (the list of
// group-versions) and /openapi/v3/<group-version> (each one's paths and schemas), which kubectl apply,
// edit, explain and diff read, and /openapi/v2 (one document for every group-version), the older form.
// Each PATCH operation names the patch types the kind takes and the fieldValidation parameter, which is
// how kubectl learns that the server validates fields itself.
import { createHash } from 'node:crypto';
import { verbsOf } from './kinds.js';
import { definitions, referenced, render } from './kinds/schema.js';
import type { ResourceKind } from './kinds/types.js';
import { PATCH_TYPES } from './patch.js';

const V3_REFS = '#/components/schemas/';
const V2_REFS = '#/definitions/';
export const MOCK_KUBERNETES_VERSION = 'v1.29.0';

/** `api/v1` or `apis/<group>/<version>`: a group-version as the OpenAPI v3 discovery names it. */
const gvPath = (k: ResourceKind): string => (k.group ? `apis/${k.group}/${k.version}` : `api/${k.version}`);

const gvk = (k: ResourceKind, kind = k.kind): { group: string; kind: string; version: string } => ({
  group: k.group,
  kind,
  version: k.version,
});

const QUERY = {
  dryRun: 'When present (All), the request is checked and answered but nothing is stored.',
  fieldManager: 'Name of the actor making the change, recorded in managedFields.',
  fieldValidation:
    'What to do with fields the schema does not declare: Ignore them, Warn (the default), or fail the request (Strict).',
  force: 'For an apply patch: take fields other managers own instead of failing.',
  labelSelector: 'Selects objects by label.',
  fieldSelector: 'Selects objects by field.',
  watch: 'Streams changes instead of answering once.',
  resourceVersion: 'Where a list or watch starts.',
  timeoutSeconds: 'How long a watch lasts.',
};
type Param = keyof typeof QUERY;

interface Operation {
  verb: 'get' | 'put' | 'post' | 'patch' | 'delete';
  action: string;
  description: string;
  params: Param[];
  body?: string[]; // content types of the request body
  schema: string; // definition of the answer (and of the body for post and put)
}

/** The operations of a kind's paths, keyed by path template. */
function operations(k: ResourceKind): Record<string, Operation[]> {
  const verbs = verbsOf(k);
  const base = `/${gvPath(k)}${k.namespaced ? '/namespaces/{namespace}' : ''}/${k.plural}`;
  const item = `${base}/{name}`;
  const patchTypes = [
    PATCH_TYPES.json,
    PATCH_TYPES.merge,
    ...(k.crd ? [] : [PATCH_TYPES.strategic]),
    PATCH_TYPES.apply,
  ];
  const write: Param[] = ['dryRun', 'fieldManager', 'fieldValidation'];
  const out: Record<string, Operation[]> = { [base]: [], [item]: [] };
  const add = (path: string, op: Operation): void => void (out[path] ??= []).push(op);
  if (verbs.includes('list'))
    add(base, {
      verb: 'get',
      action: 'list',
      description: `list or watch objects of kind ${k.kind}`,
      params: ['labelSelector', 'fieldSelector', 'watch', 'resourceVersion', 'timeoutSeconds'],
      schema: `${k.definition}List`,
    });
  if (verbs.includes('create'))
    add(base, {
      verb: 'post',
      action: 'post',
      description: `create a ${k.kind}`,
      params: write,
      body: ['application/json', 'application/yaml'],
      schema: k.definition,
    });
  if (verbs.includes('get'))
    add(item, {
      verb: 'get',
      action: 'get',
      description: `read the specified ${k.kind}`,
      params: [],
      schema: k.definition,
    });
  if (verbs.includes('update'))
    add(item, {
      verb: 'put',
      action: 'put',
      description: `replace the specified ${k.kind}`,
      params: write,
      body: ['application/json', 'application/yaml'],
      schema: k.definition,
    });
  if (verbs.includes('patch'))
    add(item, {
      verb: 'patch',
      action: 'patch',
      description: `partially update the specified ${k.kind}`,
      params: [...write, 'force'],
      body: patchTypes,
      schema: k.definition,
    });
  if (verbs.includes('delete'))
    add(item, {
      verb: 'delete',
      action: 'delete',
      description: `delete a ${k.kind}`,
      params: ['dryRun'],
      schema: k.definition,
    });
  if (k.status) {
    const status = `${item}/status`;
    add(status, {
      verb: 'get',
      action: 'get',
      description: `read status of the specified ${k.kind}`,
      params: [],
      schema: k.definition,
    });
    add(status, {
      verb: 'put',
      action: 'put',
      description: `replace status of the specified ${k.kind}`,
      params: write,
      body: ['application/json', 'application/yaml'],
      schema: k.definition,
    });
    add(status, {
      verb: 'patch',
      action: 'patch',
      description: `partially update status of the specified ${k.kind}`,
      params: [...write, 'force'],
      body: patchTypes,
      schema: k.definition,
    });
  }
  for (const key of Object.keys(out)) if (out[key]!.length === 0) delete out[key];
  return out;
}

const operationId = (k: ResourceKind, op: Operation, path: string): string =>
  `${op.action}${k.group ? k.group.split('.')[0] : 'core'}${k.version}${path.endsWith('/status') ? 'Status' : ''}${k.kind}${path.endsWith('}') || path.endsWith('/status') ? '' : 's'}`;

const pathParams = (path: string): Array<{ name: string; in: 'path'; description: string }> =>
  [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name: name!,
    in: 'path' as const,
    description:
      name === 'namespace' ? 'object name and auth scope, such as for teams and projects' : `name of the ${name}`,
  }));

/** The schemas `kinds` need, rendered, each kind's and list's marked with its group-version-kind. */
function schemasOf(kinds: ResourceKind[], refs: string): Record<string, unknown> {
  const names = new Set<string>();
  for (const k of kinds) {
    referenced({ ref: k.definition }, names);
    referenced({ ref: `${k.definition}List` }, names);
  }
  const marks = new Map<string, object>();
  for (const k of kinds) {
    marks.set(k.definition, gvk(k));
    marks.set(`${k.definition}List`, gvk(k, `${k.kind}List`));
  }
  const out: Record<string, unknown> = {};
  for (const name of [...names].sort()) {
    const mark = marks.get(name);
    out[name] = { ...render(definitions.get(name)!, refs), ...(mark && { 'x-kubernetes-group-version-kind': [mark] }) };
  }
  out['io.k8s.apimachinery.pkg.apis.meta.v1.Patch'] = {
    type: 'object',
    description: 'A patch, in one of the formats the operation takes.',
  };
  return out;
}

/** The OpenAPI v3 document of one group-version (`api/v1`, `apis/apps/v1`); undefined for one not served. */
export function openApiV3(groupVersion: string, served: ResourceKind[]): object | undefined {
  const kinds = served.filter((k) => gvPath(k) === groupVersion);
  if (kinds.length === 0) return undefined;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const k of kinds)
    for (const [path, ops] of Object.entries(operations(k))) {
      const entry: Record<string, unknown> = { parameters: pathParams(path) };
      for (const op of ops)
        entry[op.verb] = {
          description: op.description,
          operationId: operationId(k, op, path),
          parameters: op.params.map((p) => ({
            name: p,
            in: 'query',
            description: QUERY[p],
            schema: { type: 'string', uniqueItems: true },
          })),
          ...(op.body && {
            requestBody: {
              required: true,
              content: Object.fromEntries(
                op.body.map((t) => [
                  t,
                  {
                    schema: {
                      $ref: `${V3_REFS}${op.verb === 'patch' ? 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch' : op.schema}`,
                    },
                  },
                ]),
              ),
            },
          }),
          responses: {
            '200': {
              description: 'OK',
              content: { 'application/json': { schema: { $ref: `${V3_REFS}${op.schema}` } } },
            },
            '401': { description: 'Unauthorized' },
          },
          'x-kubernetes-action': op.action,
          'x-kubernetes-group-version-kind': gvk(k),
        };
      paths[path] = entry;
    }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: MOCK_KUBERNETES_VERSION },
    paths,
    components: {
      schemas: schemasOf(kinds, V3_REFS),
      securitySchemes: {
        BearerToken: { type: 'apiKey', description: 'Bearer token', name: 'authorization', in: 'header' },
      },
    },
    security: [{ BearerToken: [] }],
  };
}

const cache = new Map<string, { json: string; hash: string }>();

/**
 * A document as JSON, made once per set of kinds served (optional kinds come and go with their CRDs), with the
 * hash clients cache it under.
 */
export function documentJson(
  key: string,
  served: ResourceKind[],
  make: () => object | undefined,
): { json: string; hash: string } | undefined {
  key = [key, ...served.filter((k) => k.optional).map((k) => `${k.plural}.${k.group}`)].join(' ');
  const hit = cache.get(key);
  if (hit) return hit;
  const doc = make();
  if (!doc) return undefined;
  const json = JSON.stringify(doc);
  const made = { json, hash: createHash('sha512').update(json).digest('hex').slice(0, 128).toUpperCase() };
  cache.set(key, made);
  return made;
}

/** /openapi/v3: where each group-version's document is. */
export function openApiV3Discovery(served: ResourceKind[]): object {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const gv of [...new Set(served.map(gvPath))].sort()) {
    const doc = documentJson(`v3:${gv}`, served, () => openApiV3(gv, served))!;
    paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${doc.hash}` };
  }
  return { paths };
}

/** /openapi/v2: every path and definition in one Swagger 2.0 document. */
export function openApiV2(served: ResourceKind[]): object {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const k of served)
    for (const [path, ops] of Object.entries(operations(k))) {
      const entry: Record<string, unknown> = {
        parameters: pathParams(path).map((p) => ({ ...p, type: 'string', required: true })),
      };
      for (const op of ops)
        entry[op.verb] = {
          description: op.description,
          operationId: operationId(k, op, path),
          consumes: op.body ?? ['*/*'],
          produces: ['application/json', 'application/yaml'],
          schemes: ['https'],
          parameters: [
            ...op.params.map((p) => ({
              name: p,
              in: 'query',
              description: QUERY[p],
              type: 'string',
              uniqueItems: true,
            })),
            ...(op.body
              ? [
                  {
                    name: 'body',
                    in: 'body',
                    required: true,
                    schema: {
                      $ref: `${V2_REFS}${op.verb === 'patch' ? 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch' : op.schema}`,
                    },
                  },
                ]
              : []),
          ],
          responses: {
            '200': { description: 'OK', schema: { $ref: `${V2_REFS}${op.schema}` } },
            '401': { description: 'Unauthorized' },
          },
          'x-kubernetes-action': op.action,
          'x-kubernetes-group-version-kind': gvk(k),
        };
      paths[path] = entry;
    }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: MOCK_KUBERNETES_VERSION },
    paths,
    definitions: schemasOf(served, V2_REFS),
    securityDefinitions: {
      BearerToken: { type: 'apiKey', description: 'Bearer token', name: 'authorization', in: 'header' },
    },
    security: [{ BearerToken: [] }],
  };
}
