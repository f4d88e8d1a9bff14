// The signed statement OpenShift clusters verify: the "atomic container signature" JSON. Unknown
// fields are refused, as the cluster refuses them.
import { Type, type Static } from '#typebox';
import { TypeCompiler } from '#typebox/compiler';

export const STATEMENT_TYPE = 'atomic container signature';

export const StatementSchema = Type.Object(
  {
    critical: Type.Object(
      {
        type: Type.Literal(STATEMENT_TYPE),
        image: Type.Object(
          { 'docker-manifest-digest': Type.String({ pattern: '^sha256:[0-9a-f]{64}$' }) },
          { additionalProperties: false },
        ),
        identity: Type.Object({ 'docker-reference': Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      },
      { additionalProperties: false },
    ),
    optional: Type.Optional(
      Type.Object(
        {
          creator: Type.Optional(Type.String()),
          timestamp: Type.Optional(Type.Integer({ minimum: 0, maximum: 253402300799 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type Statement = Static<typeof StatementSchema>;

const check = TypeCompiler.Compile(StatementSchema);

export class StatementError extends Error {
  constructor(
    readonly reason: 'invalid_statement' | 'wrong_type' | 'digest_mismatch',
    message: string,
  ) {
    super(message);
  }
}

/** Parses a statement and checks it vouches for `digest` (`sha256:<hex>`). */
export function checkStatement(bytes: Uint8Array, digest: string): Statement {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new StatementError('invalid_statement', 'the signed content is not JSON');
  }
  const type = (doc as { critical?: { type?: unknown } } | null)?.critical?.type;
  if (type !== undefined && type !== STATEMENT_TYPE)
    throw new StatementError('wrong_type', `critical.type is '${String(type)}', not '${STATEMENT_TYPE}'`);
  if (!check.Check(doc)) {
    const e = check.Errors(doc).First()!;
    throw new StatementError(
      'invalid_statement',
      `${e.path.slice(1).replace(/\//g, '.') || '(document)'}: ${e.message}`,
    );
  }
  const signed = doc.critical.image['docker-manifest-digest'];
  if (signed !== digest) throw new StatementError('digest_mismatch', `the statement is for ${signed}, not ${digest}`);
  return doc;
}

export function makeStatement(pullSpec: string, creator: string, now: Date): Statement {
  const at = pullSpec.lastIndexOf('@');
  const digest = pullSpec.slice(at + 1);
  if (at < 0 || !/^sha256:[0-9a-f]{64}$/.test(digest))
    throw new Error(`--payload: '${pullSpec}' is not pinned by digest (…@sha256:<64 hex>)`);
  return {
    critical: {
      type: STATEMENT_TYPE,
      image: { 'docker-manifest-digest': digest },
      identity: { 'docker-reference': pullSpec.slice(0, at) },
    },
    optional: { creator, timestamp: Math.floor(now.getTime() / 1000) },
  };
}
