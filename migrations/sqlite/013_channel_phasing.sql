-- Graph-data 2.x's phased rollouts of a public channel (src/graph/model.ts: ChannelPhasing, as JSON): the
-- rules of its phasedRollouts and the start of each timed version entry. NULL: a 1.x channel.
ALTER TABLE channels ADD COLUMN phasing TEXT;
