// The report of `adm upgrade`, as oc prints it (src/cli/adm/report.ts): what it shows of Upgradeable, the
// recommended and not recommended updates, and the updates it cannot refresh. What `adm upgrade --to…` asks
// for is in request.test.ts.
import { describe, expect, it } from 'vitest';
import { upgradeReport } from '../../../../src/cli/adm/report.js';
import { clusterVersion, cond, img } from '../../../support/clusterVersions.js';

describe('the report of adm upgrade, as oc prints it', () => {
  const settled = [
    cond('Failing', 'False'),
    cond('Progressing', 'False', '', 'Cluster version is 4.15.9'),
    cond('Upgradeable', 'True'),
  ];

  it('shows Upgradeable=False as oc does, and says so when no update is not recommended', () => {
    const blocked = cond(
      'Upgradeable',
      'False',
      'AdminAckRequired',
      'Kubernetes 1.29 removes APIs.\nAcknowledge first.',
    );
    const cv = clusterVersion(undefined, {
      conditions: [...settled.filter((c) => c.type !== 'Upgradeable'), blocked, cond('RetrievedUpdates', 'True')],
      conditionalUpdates: [],
    });
    const report = upgradeReport(cv, true);
    expect(report.out).toBe(
      [
        'Cluster version is 4.15.9',
        '',
        'Upgradeable=False',
        '',
        '  Reason: AdminAckRequired',
        '  Message: Kubernetes 1.29 removes APIs.',
        '  Acknowledge first.',
        '',
        'Upstream is unset, so the cluster will use an appropriate default.',
        'Channel: stable-4.16',
        '',
        'Recommended updates:',
        '',
        '  VERSION     IMAGE',
        `  4.16.5      ${img('4.16.5')}`,
        '',
        'No updates which are not recommended based on your cluster configuration are available.',
        '',
      ].join('\n'),
    );
    expect(report.err).toBe('');
    // Without conditions at all, oc warns that it knows nothing of Failing and Progressing.
    const bare = upgradeReport(clusterVersion(undefined, { conditions: [] }), true);
    expect(bare.err).toBe(
      'warning: No current Failing info, see `oc describe clusterversion` for more details.\nwarning: No current Progressing info, see `oc describe clusterversion` for more details.\n',
    );
    expect(bare.out).toContain(
      '\nSupported but not recommended updates:\n\n  Version: 4.16.6\n  Image: ' +
        img('4.16.6') +
        '\n  Recommended: False\n  Reason: OnAWS\n  Message: AWS hurts. https://x/1\n',
    );
  });

  it('says it cannot refresh the updates it still lists, and cannot display them when it lists none', () => {
    const failed = cond(
      'RetrievedUpdates',
      'False',
      'RemoteFailed',
      'Unable to retrieve available updates: connect ECONNREFUSED',
    );
    const stale = upgradeReport(clusterVersion(undefined, { conditions: [...settled, failed] }), false);
    expect(stale.out).toBe(
      [
        'Cluster version is 4.15.9',
        '',
        'Upstream is unset, so the cluster will use an appropriate default.',
        'Channel: stable-4.16',
        '',
        'Recommended updates:',
        '',
        '  VERSION     IMAGE',
        `  4.16.5      ${img('4.16.5')}`,
        '',
        'Additional updates which are not recommended based on your cluster configuration are available, to view those re-run the command with --include-not-recommended.',
        '',
      ].join('\n'),
    );
    expect(stale.err).toBe(
      'warning: Cannot refresh available updates:\n  Reason: RemoteFailed\n  Message: Unable to retrieve available updates: connect ECONNREFUSED\n\n',
    );
    const notFound = cond(
      'RetrievedUpdates',
      'False',
      'VersionNotFound',
      'Unable to retrieve available updates: currently reconciling cluster version 4.15.9 not found in the "candidate-4.17" channel',
    );
    const none = upgradeReport(
      clusterVersion(undefined, { conditions: [...settled, notFound], availableUpdates: null, conditionalUpdates: [] }),
      false,
    );
    expect(none.out).toBe(
      'Cluster version is 4.15.9\n\nUpstream is unset, so the cluster will use an appropriate default.\nChannel: stable-4.16\n',
    );
    expect(none.err).toBe(
      `warning: Cannot display available updates:\n  Reason: VersionNotFound\n  Message: ${notFound.message}\n\n`,
    );
  });
});
