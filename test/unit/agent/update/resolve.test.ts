// Resolving spec.desiredUpdate (src/agent/update/resolve.ts): a decision of an update that needs no cluster.
// The preconditions, the Upgradeable condition, the administrator acknowledgements, the ClusterOperator gate
// and release verification are beside it (preconditions, adminAcks, gate, verify); what `adm upgrade` asks
// for in test/unit/cli/adm/request.test.ts.
import { describe, expect, it } from 'vitest';
import { resolveDesired } from '../../../../src/agent/update/resolve.js';
import { clusterVersion, img, rel } from '../../../support/clusterVersions.js';

describe('resolving spec.desiredUpdate (step 1)', () => {
  it('takes the multi-architecture release of the current version once the poll lists it (--to-multi-arch)', () => {
    const asked = { architecture: 'Multi', version: '4.15.9' };
    expect(resolveDesired(clusterVersion(asked))).toEqual({ kind: 'none' });
    const multi = { version: '4.15.9', image: img('4.15.9-multi'), architecture: 'Multi' };
    expect(resolveDesired(clusterVersion(asked, { availableUpdates: [multi] }))).toEqual({
      kind: 'target',
      target: { release: multi, force: false, explicit: false },
    });
    // Once the cluster runs it, there is nothing more to do.
    const migrated = clusterVersion(asked, { desired: multi, availableUpdates: [] });
    expect(resolveDesired(migrated)).toEqual({ kind: 'none' });
  });

  it('takes a version from the recommendations or the conditional updates, as the CVO does', () => {
    expect(resolveDesired(clusterVersion())).toEqual({ kind: 'none' });
    expect(resolveDesired(clusterVersion({ version: '4.15.9' }))).toEqual({ kind: 'none' });
    const ok = resolveDesired(clusterVersion({ version: '4.16.5' }));
    expect(ok).toMatchObject({ kind: 'target', target: { release: rel('4.16.5'), force: false, explicit: false } });
    // Not recommended: taken, with its Recommended condition for the warning and its risks for acceptance.
    const notRecommended = resolveDesired(clusterVersion({ version: '4.16.6' }));
    expect(notRecommended).toMatchObject({
      kind: 'target',
      target: { release: rel('4.16.6'), recommended: { status: 'False', reason: 'OnAWS' } },
    });
    expect(
      (notRecommended as { target: { conditional: { risks: Array<{ name: string }> } } }).target.conditional.risks.map(
        (r) => r.name,
      ),
    ).toEqual(['OnAWS']);
    expect(resolveDesired(clusterVersion({ version: '4.16.9' }))).toEqual({
      kind: 'invalid',
      message:
        'spec.desiredUpdate.version: Invalid value: "4.16.9": when image is empty the update must be a previous version or an available update',
    });
  });

  it('takes a version the cluster ran before (for the rollback precondition to judge), and the image of a conditional update', () => {
    const cv = clusterVersion(
      { version: '4.15.8' },
      {
        history: [
          {
            state: 'Completed',
            startedTime: 't',
            completionTime: 't',
            version: '4.15.8',
            image: img('4.15.8'),
            verified: true,
          },
        ],
      },
    );
    expect(resolveDesired(cv)).toMatchObject({ kind: 'target', target: { release: rel('4.15.8'), explicit: true } });
    expect(resolveDesired(clusterVersion({ image: img('4.16.6') }))).toMatchObject({
      kind: 'target',
      target: { release: rel('4.16.6'), explicit: false },
    });
  });

  it('takes an image as given, marked explicit when no recommendation names it', () => {
    expect(resolveDesired(clusterVersion({ image: img('4.16.5') }))).toMatchObject({
      kind: 'target',
      target: { release: rel('4.16.5'), explicit: false },
    });
    expect(resolveDesired(clusterVersion({ image: img('4.17.1'), force: true }))).toMatchObject({
      kind: 'target',
      target: { release: { image: img('4.17.1') }, explicit: true, force: true },
    });
  });
});
