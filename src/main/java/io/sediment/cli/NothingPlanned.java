package io.sediment.cli;

import io.sediment.compact.CompactSpec;
import io.sediment.compact.CompactStrategy;
import io.sediment.compact.ExecutionMode;
import io.sediment.flink.CompactJob;
import io.sediment.flink.CompactTargets;
import io.sediment.manifest.FileStoreScan;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.Predicate;
import io.sediment.schema.CompactionOptions;
import io.sediment.table.Table;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.util.TimeUtils;

/**
 * Why a compaction planned no task, for the line after "Nothing to compact": no table, no data, no
 * partition matched the filter, every bucket already compacted, too few files for {@code
 * compaction.min.file-num}, or no partition idle long enough.
 */
final class NothingPlanned {

  private NothingPlanned() {}

  static String why(CompactJob job, ExecutionMode mode) {
    CompactTargets targets = job.targets();
    CompactSpec spec = targets.spec();
    List<String> tables = targets.tableNames();
    if (tables.isEmpty()) {
      return "no table matched";
    }
    Predicate filter = targets.partitionFilter();
    boolean anySnapshot = false;
    long files = 0;
    int fullest = 0;
    int minFileNum = Integer.MAX_VALUE;
    boolean minor = false;
    for (String name : tables) {
      Table table = targets.table(name);
      minFileNum =
          Math.min(minFileNum, table.options().get(CompactionOptions.COMPACTION_MIN_FILE_NUM));
      minor |= spec.strategy(table.options(), mode) == CompactStrategy.MINOR;
      Optional<Snapshot> latest = table.latestSnapshot();
      if (latest.isEmpty()) {
        continue;
      }
      anySnapshot = true;
      FileStoreScan scan = table.store().newScan();
      if (filter != null) {
        scan.withPartitionFilter(filter);
      }
      Map<String, Integer> perBucket = new HashMap<>();
      for (ManifestEntry e : scan.plan(latest.get())) {
        files++;
        String bucket = table.store().partitionPath(e.partition()) + "/" + e.bucket();
        fullest = Math.max(fullest, perBucket.merge(bucket, 1, Integer::sum));
      }
    }
    String what = tables.size() == 1 ? "the table" : "the tables";
    if (!anySnapshot) {
      return what + " has no snapshot yet";
    }
    if (files == 0) {
      return filter != null ? "no partition matched the partition filter" : what + " has no files";
    }
    if (spec.partitionIdleTime().isPresent()) {
      return "no partition selected has been idle for "
          + TimeUtils.formatWithHighestUnit(spec.partitionIdleTime().get())
          + " with files to compact";
    }
    if (fullest <= 1) {
      return "already compacted: every bucket selected holds at most one file";
    }
    if (minor && fullest < minFileNum) {
      return "the fullest bucket selected holds "
          + Plurals.of(fullest, "file")
          + ", below compaction.min.file-num ("
          + minFileNum
          + ")";
    }
    return "no bucket selected has files the compaction strategy would rewrite (already"
        + " compacted, or the files are not small)";
  }
}
