package io.sediment.compact;

import io.sediment.schema.CompactionOptions;
import io.sediment.schema.TableOptions;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How much a compaction rewrites, Paimon's {@code compact_strategy}. The default follows the
 * execution: a batch compaction (which runs once) is {@link #FULL}, the dedicated streaming job
 * (which runs again at every new snapshot) is {@link #MINOR}.
 */
public enum CompactStrategy {
  /**
   * Every file of the selected buckets: a primary-key bucket's sorted runs merge into one run at
   * the top level; an append bucket's files below {@code target-file-size} are bin-packed, any
   * group of two or more rewritten.
   */
  FULL,

  /**
   * Only what the table's rules pick: universal compaction's picks for primary-key buckets, groups
   * of at least {@code compaction.min.file-num} small files for append buckets.
   */
  MINOR;

  /** The name as given by users: {@code full} or {@code minor}. */
  public String value() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code full} or {@code minor} (any case); the error names the value and both names. */
  public static CompactStrategy parse(String value) {
    if (value != null) {
      String v = value.strip().toUpperCase(Locale.ROOT);
      for (CompactStrategy s : values()) {
        if (s.name().equals(v)) {
          return s;
        }
      }
    }
    throw new IllegalArgumentException(
        "Unknown compact strategy '"
            + value
            + "': allowed are "
            + Arrays.stream(values())
                .map(s -> "'" + s.value() + "'")
                .collect(Collectors.joining(", ")));
  }

  /**
   * The strategy of a compaction given none: {@code compaction.full = true} (the deprecated alias
   * of {@code full}) makes it full; otherwise full for a batch run and minor for a streaming one.
   */
  public static CompactStrategy defaultFor(TableOptions options, ExecutionMode mode) {
    if (options.get(CompactionOptions.COMPACTION_FULL)) {
      return FULL;
    }
    return mode == ExecutionMode.STREAMING ? MINOR : FULL;
  }
}
