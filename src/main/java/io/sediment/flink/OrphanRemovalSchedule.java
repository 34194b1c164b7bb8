package io.sediment.flink;

import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.schema.CompactionOptions;
import io.sediment.table.Table;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the dedicated compaction job removes orphan files of a table: after a commit, once per
 * {@code compaction.remove-orphans.interval} (not set: never) on the table's clock, with {@link
 * RemoveOrphanFiles}'s default age. The first commit of a job attempt runs it; the job's own
 * outputs in flight are protected by their markers.
 */
final class OrphanRemovalSchedule {

  private static final Logger LOG = LoggerFactory.getLogger(OrphanRemovalSchedule.class);

  private final Map<String, Long> lastRun = new HashMap<>();

  /** Removes the table's orphans if it is time; a failure is thrown for the caller to count. */
  void afterCommit(Table table) {
    Duration interval = table.options().get(CompactionOptions.COMPACTION_REMOVE_ORPHANS_INTERVAL);
    if (interval == null) {
      return;
    }
    long now = table.store().clock().millis();
    Long last = lastRun.get(table.fullName());
    if (last != null && now - last < interval.toMillis()) {
      return;
    }
    lastRun.put(table.fullName(), now); // a failed run waits for the next interval too
    List<Path> removed = new RemoveOrphanFiles(table).execute();
    LOG.info("Scheduled orphan removal of {}: {} file(s)", table.fullName(), removed.size());
  }
}
