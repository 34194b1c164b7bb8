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
 * the table's clock ({@code FileStore#clock()}) when the trigger was made. Unset options never
 * fire.
 */
final class CompactTrigger {

  private final long minBytes;
  // files written before this time have waited long enough (Long.MIN_VALUE: no time trigger)
  private final long writtenBefore;

  private CompactTrigger(long minBytes, long writtenBefore) {
    this.minBytes = minBytes;
    this.writtenBefore = writtenBefore;
  }

  static CompactTrigger of(TableOptions options, Clock clock) {
    MemorySize bytes = options.get(CompactionOptions.COMPACTION_TRIGGER_MIN_BYTES);
    Duration delay = options.get(CompactionOptions.COMPACTION_TRIGGER_MAX_DELAY);
    return new CompactTrigger(
        bytes == null ? Long.MAX_VALUE : bytes.getBytes(),
        delay == null ? Long.MIN_VALUE : clock.millis() - delay.toMillis());
  }

  /** A trigger that never fires (full compaction). */
  static CompactTrigger never() {
    return new CompactTrigger(Long.MAX_VALUE, Long.MIN_VALUE);
  }

  /** Whether the files add up to the bytes, or the oldest of them was written long enough ago. */
  boolean fired(Iterable<DataFileMeta> files) {
    long bytes = 0;
    long oldest = Long.MAX_VALUE;
    for (DataFileMeta f : files) {
      bytes += f.fileSize();
      oldest = Math.min(oldest, f.creationTimeMillis());
    }
    return bytes >= minBytes || oldest <= writtenBefore;
  }
}
