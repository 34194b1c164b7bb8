package io.sediment.bench;

import java.util.Locale;

/**
 * Sizes of the workloads: {@link #FULL} is WORKLOAD.md's; smaller ones are for tests only (the same
 * rules, fewer rows).
 */
public record Scale(
    int w1Commits,
    int w1RowsPerCommit,
    int w2Commits,
    int w2RowsPerCommit,
    int w2KeySpace,
    int w3Partitions,
    int w3FilesPerPartition) {

  public static final Scale FULL =
      new Scale(
          Workload.W1_COMMITS,
          Workload.W1_ROWS_PER_COMMIT,
          Workload.W2_COMMITS,
          Workload.W2_ROWS_PER_COMMIT,
          Workload.W2_KEY_SPACE,
          Workload.W3_PARTITIONS,
          Workload.W3_FILES_PER_PARTITION);

  /** WORKLOAD.md's sizes divided by {@code divisor} (tests). */
  public static Scale divided(int divisor) {
    return FULL.dividedBy(divisor);
  }

  /** These sizes divided by {@code divisor} (tests). */
  public Scale dividedBy(int divisor) {
    if (divisor <= 1) {
      return this;
    }
    int key = Math.max(5, w2KeySpace / divisor);
    if (key % 3 == 0) {
      key++;
    }
    return new Scale(
        Math.max(2, w1Commits / divisor),
        Math.max(10, w1RowsPerCommit / divisor),
        w2Commits,
        Math.max(4, Math.min(key, w2RowsPerCommit / divisor)),
        key,
        Math.max(2, w3Partitions / divisor),
        Math.max(2, w3FilesPerPartition / divisor));
  }

  /**
   * The scale runs of WORKLOAD.md, by name: {@code W1x10} (2,000 commits of 50,000 rows), {@code
   * W2x4} (commits of 8,000,000 upserts, ids modulo 20,000,000), {@code W3x50} (10,000 partitions);
   * the base workload's sizes for any other name.
   */
  public static Scale of(String named) {
    return switch (named.toUpperCase(Locale.ROOT)) {
      case "W1X10" -> FULL.withW1(Workload.W1_COMMITS * 10, Workload.W1_ROWS_PER_COMMIT);
      case "W2X4" -> FULL.withW2(Workload.W2_ROWS_PER_COMMIT * 4, Workload.W2_KEY_SPACE * 4);
      case "W3X50" -> FULL.withW3Partitions(Workload.W3_PARTITIONS * 50);
      default -> FULL;
    };
  }

  private Scale withW1(int commits, int rowsPerCommit) {
    return new Scale(
        commits,
        rowsPerCommit,
        w2Commits,
        w2RowsPerCommit,
        w2KeySpace,
        w3Partitions,
        w3FilesPerPartition);
  }

  private Scale withW2(int rowsPerCommit, int keySpace) {
    return new Scale(
        w1Commits,
        w1RowsPerCommit,
        w2Commits,
        rowsPerCommit,
        keySpace,
        w3Partitions,
        w3FilesPerPartition);
  }

  private Scale withW3Partitions(int partitions) {
    return new Scale(
        w1Commits,
        w1RowsPerCommit,
        w2Commits,
        w2RowsPerCommit,
        w2KeySpace,
        partitions,
        w3FilesPerPartition);
  }
}
