// CustomResourceDefinitions (apiextensions.k8s.io/v1): the mock lists one for each kind OpenShift serves
// through a CRD (crds.ts makes them from the kinds' declarations), beside any a client creates.
import { condition } from './meta.js';
import { bool, free, int, arrayOf, obj, str } from './schema.js';
import type { ResourceKind } from './types.js';

export const CUSTOM_RESOURCE_DEFINITION: ResourceKind = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  status: true,
  generation: true,
  categories: ['api-extensions'],
  definition: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
  schema: obj('A kind the API server serves from its declaration.', {
    spec: obj(
      'The kind and how it is served.',
      {
        group: str('API group of the kind.'),
        names: obj(
          'Names of the kind.',
          {
            plural: str('Resource name in URLs.'),
            singular: str('Singular name.'),
            kind: str('Kind name.'),
            listKind: str('Kind name of its lists.'),
            shortNames: arrayOf('Short names kubectl accepts.', { type: 'string' }),
            categories: arrayOf('Groups of resources it belongs to (all).', { type: 'string' }),
          },
          ['plural', 'kind'],
        ),
        scope: str('Cluster or Namespaced.'),
        versions: arrayOf(
          'Versions served.',
          obj(
            'A version.',
            {
              name: str('Version name.'),
              served: bool('It is served.'),
              storage: bool('Objects are stored in it.'),
              deprecated: bool('It is deprecated.'),
              schema: obj('Its schema.', { openAPIV3Schema: free('The OpenAPI v3 schema of its objects.') }),
              subresources: free('Its subresources (status, scale).'),
              additionalPrinterColumns: arrayOf(
                'Columns kubectl get prints.',
                obj(
                  'A column.',
                  {
                    name: str('Header.'),
                    type: str('OpenAPI type of its cells.'),
                    format: str('OpenAPI format of its cells.'),
                    description: str('What it shows.'),
                    priority: int('0: always shown; more: only with -o wide.'),
                    jsonPath: str('JSONPath of its cells in the object.'),
                  },
                  ['name', 'type', 'jsonPath'],
                ),
              ),
            },
            ['name', 'served', 'storage'],
          ),
        ),
        conversion: free('How objects are converted between versions.'),
        preserveUnknownFields: bool('Unknown fields are kept (deprecated).'),
      },
      ['group', 'names', 'scope', 'versions'],
    ),
    status: obj('Where the definition stands.', {
      conditions: arrayOf('Conditions (Established, NamesAccepted).', condition('A condition.'), { mergeKey: 'type' }),
      acceptedNames: free('The names in use.'),
      storedVersions: arrayOf('Versions objects were ever stored in.', { type: 'string' }),
    }),
  }),
  columns: [
    {
      name: 'Created At',
      type: 'date',
      description: 'When the server created the object.',
      cell: (o) => o.metadata.creationTimestamp ?? '',
    },
  ],
};
