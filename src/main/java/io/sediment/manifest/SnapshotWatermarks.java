package io.sediment.manifest;

import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Finds snapshots by their commit time or watermark ({@link Snapshot#watermark()}). Commit times
 * and watermarks never decrease along snapshot ids, and snapshots without a watermark come before
 * the first that has one, so each search is a binary search over the ids for the end of a prefix
 * (reading about log2(n) snapshots).
 */
public final class SnapshotWatermarks {

  private SnapshotWatermarks() {}

  /** The newest snapshot committed at or before {@code millis}. */
  public static Optional<Snapshot> committedAtOrBefore(SnapshotManager snapshots, long millis) {
    return prefixEnd(snapshots, s -> s.timeMillis() <= millis).last();
  }

  /**
   * The oldest snapshot still there whose watermark is at least {@code watermark}: what {@code
   * sys.create_tag_from_watermark} tags, as in Paimon.
   */
  public static Optional<Snapshot> firstAtOrAfter(SnapshotManager snapshots, long watermark) {
    return prefixEnd(snapshots, s -> s.watermark() == null || s.watermark() < watermark).next();
  }

  /**
   * The newest snapshot whose watermark is at most {@code watermark}: what {@code
   * sys.rollback_to_watermark} rolls back to, as in Paimon. Snapshots without a watermark are never
   * the answer.
   */
  public static Optional<Snapshot> latestAtOrBefore(SnapshotManager snapshots, long watermark) {
    return prefixEnd(snapshots, s -> s.watermark() == null || s.watermark() <= watermark)
        .last()
        .filter(s -> s.watermark() != null);
  }

  /** The last snapshot of a prefix of the ids, and the first after it; either may be empty. */
  private record PrefixEnd(Optional<Snapshot> last, Optional<Snapshot> next) {}

  /**
   * The end of the prefix of ids for which {@code inPrefix} holds. A snapshot that expires while
   * searching counts as in the prefix: only newer ones can be the answer.
   */
  private static PrefixEnd prefixEnd(SnapshotManager snapshots, Predicate<Snapshot> inPrefix) {
    List<Long> ids = snapshots.listIds();
    int lo = 0;
    int hi = ids.size() - 1;
    Snapshot last = null;
    Snapshot next = null;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      Optional<Snapshot> s = snapshots.snapshotIfExists(ids.get(mid));
      if (s.isEmpty() || inPrefix.test(s.get())) {
        last = s.orElse(last);
        lo = mid + 1;
      } else {
        next = s.get();
        hi = mid - 1;
      }
    }
    return new PrefixEnd(Optional.ofNullable(last), Optional.ofNullable(next));
  }

  /**
   * Describes the watermarks of the table's snapshots, for a refusal ("the latest, 7, has ...").
   */
  public static String describe(SnapshotManager snapshots) {
    Optional<Snapshot> latest = snapshots.latest();
    if (latest.isEmpty()) {
      return "it has no snapshot yet";
    }
    Long w = latest.get().watermark();
    if (w == null) {
      return "none of its snapshots has a watermark (SQL writes record one when their input has"
          + " watermarks)";
    }
    Optional<Snapshot> first = firstAtOrAfter(snapshots, Long.MIN_VALUE);
    return "the watermarks of its snapshots still there go from "
        + first.map(s -> s.watermark() + " (snapshot " + s.id() + ")").orElse("?")
        + " to "
        + w
        + " (snapshot "
        + latest.get().id()
        + ")";
  }
}
