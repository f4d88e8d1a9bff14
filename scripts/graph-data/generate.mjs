// The generation pipeline, in the order each step needs the previous ones. Pure apart from the
// seeded randomness: the same size and seed always give the same dataset.
import { assignArchitectures } from './architectures.mjs';
import { blockedEdgesFor } from './blockedEdges.mjs';
import { channelsFor } from './channels.mjs';
import { assignErrataUrls } from './errata.mjs';
import { sizeProfile } from './profiles.mjs';
import { decidePromotions } from './promotion.mjs';
import { seededRandom } from './random.mjs';
import { rawMetadataFor } from './rawMetadata.mjs';
import { releaseTimeline } from './timeline.mjs';
import { linkUpdateSources, missedCandidateLinks } from './updateSources.mjs';

/** `{ seed, history, rawMetadata, channels, internalChannels, blocked }`, ready for writeTree. */
export function generateDataset({ size, seed }) {
  const random = seededRandom(seed);
  const history = releaseTimeline(sizeProfile(size, random), random);
  decidePromotions(history, random);
  assignArchitectures(history, random);
  const missedLinks = missedCandidateLinks(history, random);
  linkUpdateSources(history, missedLinks, random);
  assignErrataUrls(history, random);
  const rawMetadata = rawMetadataFor(history, missedLinks, random);
  const { channels, internalChannels } = channelsFor(history);
  const blocked = blockedEdgesFor(history, random);
  return { seed, history, rawMetadata, channels, internalChannels, blocked };
}
