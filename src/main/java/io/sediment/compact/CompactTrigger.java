package io.sediment.compact;

import io.sediment.manifest.DataFileMeta;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.TableOptions;
import java.time.Clock;
import java.time.Duration;
import org.apache.flink.configuration.MemorySize;

/**
 * The byte and time triggers of minor compaction ({@code compaction.trigger.min-bytes}, {@code
 * compaction.trigger.max-delay}): whether a group of files (an append bucket's small files, a
 * primary-key bucket's level-0 runs) waited enough, by their bytes or by the age of the oldest, on
 * the table's clock ({@code FileStore#clock()}) when the files are checked. Unset options never
 * fire.
 */
final class CompactTrigger {

  private final long minBytes;
  // how long files wait at most (Long.MAX_VALUE: no time trigger), on the clock, read at each
  // check: a writer keeps its strategy, and so its trigger, for as long as it writes
  private final long maxDelayMillis;
  private final Clock clock;

  private CompactTrigger(long minBytes, long maxDelayMillis, Clock clock) {
    this.minBytes = minBytes;
    this.maxDelayMillis = maxDelayMillis;
    this.clock = clock;
  }

  static CompactTrigger of(TableOptions options, Clock clock) {
    MemorySize bytes = options.get(CompactionOptions.COMPACTION_TRIGGER_MIN_BYTES);
    Duration delay = options.get(CompactionOptions.COMPACTION_TRIGGER_MAX_DELAY);
    return new CompactTrigger(
        bytes == null ? Long.MAX_VALUE : bytes.getBytes(),
        delay == null ? Long.MAX_VALUE : delay.toMillis(),
        clock);
  }

  /** A trigger that never fires (full compaction). */
  static CompactTrigger never() {
    return new CompactTrigger(Long.MAX_VALUE, Long.MAX_VALUE, null);
  }

  /** Whether the files add up to the bytes, or the oldest of them was written long enough ago. */
  boolean fired(Iterable<DataFileMeta> files) {
    long bytes = 0;
    long oldest = Long.MAX_VALUE;
    for (DataFileMeta f : files) {
      bytes += f.fileSize();
      oldest = Math.min(oldest, f.creationTimeMillis());
    }
    if (bytes >= minBytes) {
      return true;
    }
    return maxDelayMillis != Long.MAX_VALUE
        && oldest != Long.MAX_VALUE
        && clock.millis() - oldest >= maxDelayMillis;
  }
}
