// Risks and hard blocks declared and withdrawn through the admin API, classified and validated
// exactly like a blocked-edges file; the id stands for the file name.
import { ApiError } from '../../errors.js';
import type { BlockedEdge } from '../../graph/model.js';
import type { RiskAdded } from '../../schemas/admin.js';
import { classifyBlockedEdge } from '../../validation/blockedEdges.js';
import type { Problem } from '../../validation/problems.js';
import { invalidRequest, type Actor, type AuditedWrites } from './writes.js';

export class RiskWrites {
  constructor(private readonly writes: AuditedWrites) {}

  /** Declares a risk or hard block; `id` defaults to `<to>-<name>`. Warnings name what is kept as given. */
  addRisk(body: unknown, actor: Actor): Promise<RiskAdded> {
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new ApiError('invalid_request', 'body: a JSON object is expected');
    const { id: requestedId, ...doc } = body as Record<string, unknown>;
    const problems: Problem[] = [];
    const warnings: Problem[] = [];
    const name = typeof doc.name === 'string' ? doc.name : 'block';
    const id = typeof requestedId === 'string' && requestedId !== '' ? requestedId : `${String(doc.to)}-${name}`;
    if (!/^[\w.+-]+$/.test(id))
      problems.push({
        file: 'body',
        field: 'id',
        message: `'${id}' may hold only letters, digits, '.', '+', '-' and '_'`,
      });
    const edge = classifyBlockedEdge(doc, 'body', id, problems, warnings);
    if (problems.length || !edge) throw invalidRequest(problems);
    return this.writes.run(async (tx, at) => {
      if (await tx.blockedEdges.get(id))
        throw new ApiError('conflict', `a blocked edge with id '${id}' exists; delete it first or give another id`);
      await tx.blockedEdges.upsert(edge, at);
      await this.writes.record(tx, at, actor, edge.risk ? 'risk.add' : 'block.add', id, null, edge);
      const kept = warnings.map((w) => `body.${w.field}: ${w.message}`);
      return { result: { ...edge, ...(kept.length && { warnings: kept }) }, changed: true };
    });
  }

  deleteRisk(id: string, actor: Actor, reason: string | null): Promise<BlockedEdge> {
    return this.writes.run(async (tx, at) => {
      const before = await tx.blockedEdges.get(id);
      if (!before) throw new ApiError('does_not_exist', `no blocked edge with id '${id}'`);
      await tx.blockedEdges.delete(id);
      await this.writes.record(tx, at, actor, before.risk ? 'risk.delete' : 'block.delete', id, before, null, reason);
      return { result: before, changed: true };
    });
  }
}
