package io.sediment.manifest;

import java.util.List;
import java.util.Optional;

/**
 * Finds snapshots by their watermark ({@link Snapshot#watermark()}). Watermarks never decrease
 * along snapshot ids, and snapshots without one come before the first that has one, so both
 * searches are binary searches over the ids, reading about log2(n) snapshots.
 */
public final class SnapshotWatermarks {

  private SnapshotWatermarks() {}

  /**
   * The oldest snapshot still there whose watermark is at least {@code watermark}: what {@code
   * sys.create_tag_from_watermark} tags, as in Paimon.
   */
  public static Optional<Snapshot> firstAtOrAfter(SnapshotManager snapshots, long watermark) {
    List<Long> ids = snapshots.listIds();
    int lo = 0;
    int hi = ids.size() - 1;
    Snapshot found = null;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      Optional<Snapshot> s = snapshots.snapshotIfExists(ids.get(mid));
      if (s.isEmpty()) { // expired while searching: only newer ones can be the answer
        lo = mid + 1;
        continue;
      }
      Long w = s.get().watermark();
      if (w != null && w >= watermark) {
        found = s.get();
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * The newest snapshot whose watermark is at most {@code watermark}: what {@code
   * sys.rollback_to_watermark} rolls back to, as in Paimon. Snapshots without a watermark are never
   * the answer.
   */
  public static Optional<Snapshot> latestAtOrBefore(SnapshotManager snapshots, long watermark) {
    List<Long> ids = snapshots.listIds();
    int lo = 0;
    int hi = ids.size() - 1;
    Snapshot found = null;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      Optional<Snapshot> s = snapshots.snapshotIfExists(ids.get(mid));
      if (s.isEmpty()) {
        lo = mid + 1;
        continue;
      }
      Long w = s.get().watermark();
      if (w == null || w <= watermark) {
        // the last snapshot visited here is the answer; one without a watermark means none has
        found = w == null ? null : s.get();
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return Optional.ofNullable(found);
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
