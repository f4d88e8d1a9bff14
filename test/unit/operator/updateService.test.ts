// The UpdateService's spec and the status rules the operator writes by (src/operator/updateService.ts,
// and the check of its CA, src/operator/clusterInputs.ts): pure, no cluster. What the operator makes of
// an UpdateService is in operands.test.ts.
import { describe, expect, it } from 'vitest';
import { caBundleProblem } from '../../../src/operator/clusterInputs.js';
import { setUpdateServiceCondition, specProblems } from '../../../src/operator/updateService.js';
import { CA, us } from '../../support/updateServices.js';

describe('the UpdateService spec and status', () => {
  it('names each field a spec cannot be served with', () => {
    expect(specProblems(us().spec)).toEqual([]);
    expect(specProblems({ releases: 'release-images', graphDataImage: 'mirror.example.com/g', replicas: 0 })).toEqual([
      "spec.releases: 'release-images' names no repository: expected HOST[:PORT]/REPOSITORY",
      "spec.graphDataImage: 'mirror.example.com/g' names no image version: add :TAG or @sha256:DIGEST",
      'spec.replicas: a whole number from 1 to 100',
    ]);
    expect(
      specProblems({ releases: 'https://mirror.example.com/r', graphDataImage: 'mirror.example.com/g:1', replicas: 1 }),
    ).toEqual(['spec.releases: a pull spec names no scheme']);
  });

  it('bounds the spec, reads its pull specs trimmed, and checks the names made from the resource before anything is applied', () => {
    const good = us().spec;
    expect(specProblems({ ...good, replicas: 1e9 })).toEqual(['spec.replicas: a whole number from 1 to 100']);
    expect(specProblems({ ...good, releases: `mirror.example.com/${'r'.repeat(100_000)}` })).toEqual([
      'spec.releases: longer than 1024 characters',
    ]);
    expect(specProblems({ ...good, releases: `  ${good.releases}\n` })).toEqual([]);
    expect(specProblems(good, 'sample')).toEqual([]);
    const long = 'u'.repeat(250);
    expect(specProblems(good, long)).toEqual([
      expect.stringMatching(/^metadata\.name: 'u+' makes the Service name 'u+', not a DNS label/),
    ]);
    expect(specProblems(good, '1abc')).toHaveLength(1); // a Service name must begin with a letter
    // With a Route, its host's first label (<name>-route-<namespace>) must fit in 63 characters.
    expect(specProblems(good, 'sample', 'openshift-update-service')).toEqual([]);
    expect(specProblems(good, 'a'.repeat(40), 'openshift-update-service')).toEqual([
      expect.stringMatching(
        /makes the Route host 'a+-route-openshift-update-service\.…', whose first label is over 63/,
      ),
    ]);
  });

  it('keeps a condition as it was while nothing of it changes; a new status moves its transition time', () => {
    const first = setUpdateServiceCondition(
      [],
      { type: 'ReconcileCompleted', status: 'True', reason: 'Success', message: '' },
      't1',
    );
    expect(
      setUpdateServiceCondition(
        first,
        { type: 'ReconcileCompleted', status: 'True', reason: 'Success', message: '' },
        't2',
      ),
    ).toEqual(first);
    const msg = setUpdateServiceCondition(
      first,
      { type: 'ReconcileCompleted', status: 'True', reason: 'Success', message: 'x' },
      't3',
    );
    expect(msg[0]).toMatchObject({ lastTransitionTime: 't1', lastHeartbeatTime: 't3' });
    const failed = setUpdateServiceCondition(
      msg,
      { type: 'ReconcileCompleted', status: 'False', reason: 'InvalidSpec' },
      't4',
    );
    expect(failed[0]).toMatchObject({ lastTransitionTime: 't4', lastHeartbeatTime: 't4' });
    const three = setUpdateServiceCondition(
      setUpdateServiceCondition(failed, { type: 'ReconcileError', status: 'True' }, 't5'),
      { type: 'RegistryCACertFound', status: 'False' },
      't5',
    );
    expect(three.map((c) => c.type)).toEqual(['ReconcileCompleted', 'RegistryCACertFound', 'ReconcileError']);
  });

  it('refuses a CA that is no PEM certificate', () => {
    expect(caBundleProblem('hello')).toBe('no PEM certificate (-----BEGIN CERTIFICATE-----)');
    expect(caBundleProblem(CA)).toMatch(/^certificate 1 cannot be read/);
  });
});
