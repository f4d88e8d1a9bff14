-- The rollout monitor counts the clusters that took one edge since its rollout started, every 15 s per
-- rollout (src/app/rollouts/monitor.ts, FleetReportRepository.rolloutRows). Without these indexes a count
-- reads every cluster of the channel, or every update of the window: 0.5-1 s at 400,000 clusters on SQLite.
-- The updates' index holds what the count reads of them, and only the plausible ones: polls that claim a
-- downgrade or an unknown version (anyone may send them) do not slow the count down.
CREATE INDEX fleet_outcomes_by_target ON fleet_outcomes (to_version, seen_at);
CREATE INDEX fleet_updates_by_target ON fleet_updates (to_version, channel, first_at_to, from_version, id)
  WHERE suspicious = 0;
