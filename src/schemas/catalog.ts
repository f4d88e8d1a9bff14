// The answer of GET /api/v1/catalog: the served graph's architectures and channels in brief.
import { Type } from '#typebox';

export const CatalogAnswer = Type.Object({
  builtAt: Type.String({ description: 'When the served graph was built' }),
  arches: Type.Array(Type.String()),
  channels: Type.Array(
    Type.Object({
      name: Type.String(),
      releases: Type.Record(Type.String(), Type.Integer(), { description: 'Releases served, per architecture' }),
    }),
  ),
});
