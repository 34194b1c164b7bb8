package io.sediment.retention;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TagManager;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TagOptions;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A committer's automatic tags (Paimon's {@code tag.automatic-creation = process-time} and {@code
 * watermark}): after a commit, the first snapshot committed once a period has ended (plus {@code
 * tag.creation-delay}) is tagged with the name of the period before the one it was committed in
 * ({@link TagPeriod}); a committer that finds no automatic tag yet tags the first snapshot it sees.
 * By watermark, a snapshot's time is its watermark read in {@code sink.watermark-time-zone}, and
 * snapshots without one are passed over. Then, with {@code tag.num-retained-max}, the oldest
 * automatic tags beyond it are deleted with the files only they kept. Tags are made as {@code
 * sys.create_tag} makes them ({@link TagCreation}); a tag another committer made first is taken as
 * made.
 *
 * <p>It keeps the next period and the next snapshot to look at; between periods a run reads nothing
 * (the committed snapshot is older than the period's end). The commit has landed when this runs, so
 * it never throws: a failure is logged and returned, and the next commit retries.
 */
public final class TagAutoCreation {

  private static final Logger LOG = LoggerFactory.getLogger(TagAutoCreation.class);

  /** What one run did. */
  public record Outcome(List<String> created, List<String> deleted, RuntimeException failure) {
    public static final Outcome NOTHING = new Outcome(List.of(), List.of(), null);

    public boolean failed() {
      return failure != null;
    }
  }

  private final String tableName;
  private boolean started;
  private LocalDateTime nextTag; // the start of the period tagged next; null: no automatic tag yet
  private long nextSnapshot;
  private long failedChecks;

  public TagAutoCreation(String tableName) {
    this.tableName = tableName;
  }

  /**
   * After a commit to {@code store}.
   *
   * @param committedSnapshotId the commit's last snapshot; negative: unknown
   */
  public Outcome run(FileStore store, long committedSnapshotId) {
    TableOptions options = store.options();
    String mode = options.get(TagOptions.TAG_AUTOMATIC_CREATION);
    boolean byWatermark = mode.equalsIgnoreCase("watermark");
    if (!byWatermark && !mode.equalsIgnoreCase("process-time")) {
      return Outcome.NOTHING;
    }
    List<String> created = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    try {
      TagPeriod period = TagPeriod.of(options);
      Duration delay = options.get(TagOptions.TAG_CREATION_DELAY);
      TagManager tags = new TagManager(store.fileIO(), store.paths());
      SnapshotManager snapshots = store.snapshotManager();
      if (!started) {
        start(tags, snapshots, period);
      }
      Function<Snapshot, LocalDateTime> timeOf =
          byWatermark
              ? watermarkTime(ZoneId.of(options.get(TagOptions.SINK_WATERMARK_TIME_ZONE)))
              : s -> localTime(s.timeMillis());
      LocalDateTime now = localTime(store.clock().millis());
      if (!byWatermark
          && nextTag != null
          && committedSnapshotId == nextSnapshot
          && !due(now, delay, period)) {
        // the only new snapshot is this commit's, made on this clock before now: not due either
        nextSnapshot = committedSnapshotId + 1;
        return Outcome.NOTHING;
      }
      long latest = snapshots.latestId().orElse(0);
      for (long id = nextSnapshot; id <= latest; ) {
        Optional<Snapshot> s = snapshots.snapshotIfExists(id);
        if (s.isEmpty()) {
          OptionalLong earliest = snapshots.earliestId(); // expired meanwhile: go on from there
          if (earliest.isPresent() && earliest.getAsLong() > id) {
            id = earliest.getAsLong();
            continue;
          }
          break;
        }
        tag(store, tags, s.get(), timeOf, period, delay, created, deleted);
        nextSnapshot = ++id;
      }
      if (!created.isEmpty() || !deleted.isEmpty()) {
        LOG.info("Automatic tags of {}: made {}, deleted {}", tableName, created, deleted);
      }
      return new Outcome(created, deleted, null);
    } catch (RuntimeException e) {
      LOG.warn(
          "Automatic tag creation of {} failed after a successful commit; the next commit retries"
              + " it",
          tableName,
          e);
      return new Outcome(created, deleted, e);
    }
  }

  /**
   * Whether a streaming committer whose checkpoint wrote nothing should commit an empty snapshot,
   * so that an idle input does not hold its automatic tags back (Paimon's forced snapshot): by
   * process time, when the next period's tag is due and no snapshot since can take it; by watermark
   * with {@code snapshot.watermark-idle-timeout}, when {@code watermark} (the checkpoint's; null:
   * none) is past the latest snapshot's and the table had no commit for that long. Never throws: a
   * failure is logged and answers no.
   */
  public boolean wantsSnapshot(FileStore store, Long watermark) {
    TableOptions options = store.options();
    String mode = options.get(TagOptions.TAG_AUTOMATIC_CREATION);
    try {
      if (mode.equalsIgnoreCase("process-time")) {
        TagPeriod period = TagPeriod.of(options);
        Duration delay = options.get(TagOptions.TAG_CREATION_DELAY);
        LocalDateTime now = localTime(store.clock().millis());
        if (started && nextTag != null && !due(now, delay, period)) {
          return false; // reads nothing between periods
        }
        if (store.snapshotManager().latestId().isEmpty()) {
          return false; // nothing to tag yet
        }
        if (run(store, -1).failed()) { // a snapshot since the period's end may take the tag
          failedChecks++;
          return false;
        }
        return nextTag != null && due(now, delay, period);
      }
      Duration idle = options.get(TagOptions.SNAPSHOT_WATERMARK_IDLE_TIMEOUT);
      if (!mode.equalsIgnoreCase("watermark") || idle == null || watermark == null) {
        return false;
      }
      Optional<Snapshot> latest = store.snapshotManager().latest();
      if (latest.isEmpty()) {
        return false; // nothing to tag
      }
      Long latestWatermark = latest.get().watermark();
      return (latestWatermark == null || latestWatermark < watermark)
          && store.clock().millis() - latest.get().timeMillis() >= idle.toMillis();
    } catch (RuntimeException e) {
      LOG.warn("Could not tell whether {} needs a snapshot for its automatic tags", tableName, e);
      failedChecks++;
      return false;
    }
  }

  /** How many {@link #wantsSnapshot} checks failed (counted as automatic tag failures). */
  public long failedChecks() {
    return failedChecks;
  }

  /** From the newest automatic tag, or (none yet) from the earliest snapshot. */
  private void start(TagManager tags, SnapshotManager snapshots, TagPeriod period) {
    TagManager.Tag newest = null;
    for (TagManager.Tag t : tags.all().values()) {
      if (period.start(t.name()) != null
          && (newest == null
              || t.snapshot().id() > newest.snapshot().id()
              || (t.snapshot().id() == newest.snapshot().id()
                  && period.start(t.name()).isAfter(period.start(newest.name()))))) {
        newest = t;
      }
    }
    if (newest == null) {
      nextSnapshot = snapshots.earliestId().orElse(1);
      nextTag = null;
    } else {
      nextSnapshot = newest.snapshot().id() + 1;
      nextTag = period.start(newest.name()).plus(period.length());
    }
    started = true;
  }

  /** Whether a snapshot committed at {@code time} is the period {@link #nextTag}'s to tag. */
  private boolean due(LocalDateTime time, Duration delay, TagPeriod period) {
    return !time.minus(delay).isBefore(nextTag.plus(period.length()));
  }

  private void tag(
      FileStore store,
      TagManager tags,
      Snapshot snapshot,
      Function<Snapshot, LocalDateTime> timeOf,
      TagPeriod period,
      Duration delay,
      List<String> created,
      List<String> deleted) {
    LocalDateTime time = timeOf.apply(snapshot);
    if (time == null || (nextTag != null && !due(time, delay, period))) {
      return; // no watermark yet, or the period has not ended
    }
    if (TableFiles.missingFileOf(store, snapshot).isPresent()) {
      return; // expired but listed (an interrupted expiration): a later snapshot gets the tag
    }
    LocalDateTime start = period.previousPeriodStart(time);
    String name = period.name(start);
    Duration retained = store.options().get(TagOptions.TAG_DEFAULT_TIME_RETAINED);
    if (retained != null && expiredIfMadeInTime(snapshot, retained, store)) {
      // a tag that, made right after this snapshot's commit, would be gone by now: not made
      // again (after every automatic tag expired, a new committer starts at the earliest snapshot)
      nextTag = start.plus(period.length());
      return;
    }
    if (TagCreation.createUnlessExists(store, tableName, name, snapshot, retained)) {
      created.add(name); // else another committer made it first
    }
    nextTag = start.plus(period.length());
    deleted.addAll(
        TagDeletion.keepNewest(
            store,
            tags,
            t -> period.start(t.name()) != null,
            Comparator.comparingLong((TagManager.Tag t) -> t.snapshot().id())
                .thenComparing(t -> period.start(t.name()))));
  }

  /**
   * Whether a tag of {@code snapshot}, made right after its commit (as its committer would have),
   * would have expired by now.
   */
  private static boolean expiredIfMadeInTime(
      Snapshot snapshot, Duration retained, FileStore store) {
    try {
      return Math.addExact(snapshot.timeMillis(), retained.toMillis()) < store.clock().millis();
    } catch (ArithmeticException beyondTime) {
      return false; // kept for longer than dates reach
    }
  }

  /**
   * The snapshot's watermark as a local time in {@code zone} (Paimon's {@code
   * sink.watermark-time-zone}); null without a watermark.
   */
  private static Function<Snapshot, LocalDateTime> watermarkTime(ZoneId zone) {
    return s -> {
      Long w = s.watermark();
      if (w == null) {
        return null;
      }
      try {
        return LocalDateTime.ofInstant(Instant.ofEpochMilli(w), zone);
      } catch (java.time.DateTimeException beyondDates) {
        return null; // no period to name
      }
    };
  }

  private static LocalDateTime localTime(long millis) {
    return LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneId.systemDefault());
  }
}
