package io.sediment.maintenance;

import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.SnapshotManager;
import io.sediment.table.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The consumers of a table's streaming reads as an operator changes them ({@code CALL
 * sys.reset_consumer} and {@code sys.clear_consumers}, Paimon's procedures): where a consumer
 * resumes, or that it is gone, so that expiry no longer keeps the snapshots it held.
 *
 * <p>A running read with the consumer's id records its own position at every completed checkpoint
 * and so overwrites a reset: stop the job first, change the consumer, then start the job without
 * its state (a job restored from a checkpoint resumes from the checkpoint, not the consumer).
 */
public final class Consumers {

  private final Table table;
  private final ConsumerManager consumers;
  private final SnapshotManager snapshots;

  public Consumers(Table table) {
    this.table = table;
    this.consumers = new ConsumerManager(table.store().fileIO(), table.store().paths());
    this.snapshots = table.snapshotManager();
  }

  /**
   * What a change did to one consumer: the snapshot it was to resume at before ({@code before},
   * empty for a consumer that did not exist) and after (empty once deleted).
   */
  public record Change(String consumerId, OptionalLong before, OptionalLong after) {

    /** {@code created}, {@code reset} or {@code deleted}. */
    public String action() {
      return after.isEmpty() ? "deleted" : before.isEmpty() ? "created" : "reset";
    }
  }

  /**
   * Refuses a snapshot a read cannot resume at: one still there, or the one after the latest (only
   * later commits), are the ones it can.
   *
   * @throws IllegalArgumentException naming the snapshots there are
   */
  public void checkNextSnapshot(long nextSnapshot) {
    OptionalLong latest = snapshots.latestId();
    long first = snapshots.earliestId().orElse(latest.orElse(0) + 1);
    long last = latest.orElse(0) + 1;
    if (nextSnapshot < first || nextSnapshot > last) {
      String have =
          latest.isEmpty()
              ? table.fullName() + " has no snapshot yet: give 1 (its first commit)"
              : table.fullName()
                  + " has snapshots "
                  + first
                  + " to "
                  + latest.getAsLong()
                  + ": give one of them, or "
                  + last
                  + " to read only later commits";
      throw new IllegalArgumentException(
          "Snapshot " + nextSnapshot + " is not one a read can resume at; " + have);
    }
  }

  /**
   * Makes consumer {@code id} resume at snapshot {@code nextSnapshot} ({@link #checkNextSnapshot}),
   * creating the consumer when there is none.
   *
   * <p>An expiry that read the consumers before the write may retire the snapshot: when it is gone
   * once written, the consumer is put back as it was and the reset fails. An expiry that planned
   * before the write and deletes after that check is not seen; resetting to the earliest snapshot
   * while expiries run can so leave the consumer below the earliest, which its read then reports
   * (naming the earliest snapshot there is).
   *
   * @throws IllegalArgumentException for an id that cannot name a consumer or another snapshot;
   *     nothing is changed then
   * @throws IllegalStateException when an expiry retired the snapshot while it was being set
   */
  public Change reset(String id, long nextSnapshot) {
    checkId(id);
    checkNextSnapshot(nextSnapshot);
    Optional<ConsumerManager.Position> before = readablePosition(id);
    boolean existed = consumers.ids().contains(id);
    record(id, new ConsumerManager.Position(nextSnapshot, false));
    OptionalLong earliest = snapshots.earliestId();
    if (earliest.isPresent() && earliest.getAsLong() > nextSnapshot) {
      if (before.isPresent()) {
        record(id, before.get()); // as it was, a position inside a read's start too
      } else if (!existed) {
        consumers.delete(id);
      }
      throw new IllegalStateException(
          "Snapshot "
              + nextSnapshot
              + " of "
              + table.fullName()
              + " expired while consumer '"
              + id
              + "' was reset to it (the earliest is now "
              + earliest.getAsLong()
              + "); the consumer is as it was");
    }
    return new Change(
        id,
        before.isPresent() ? OptionalLong.of(before.get().nextSnapshot()) : OptionalLong.empty(),
        OptionalLong.of(nextSnapshot));
  }

  /**
   * Deletes consumer {@code id}, also when its file does not parse.
   *
   * @throws IllegalArgumentException when the table has no such consumer (naming those it has)
   */
  public Change delete(String id) {
    checkId(id);
    Set<String> ids = consumers.ids();
    if (!ids.contains(id)) {
      throw new IllegalArgumentException(
          table.fullName()
              + " has no consumer '"
              + id
              + "'; "
              + (ids.isEmpty() ? "it has none" : "its consumers are " + ids));
    }
    OptionalLong before = readable(id);
    consumers.delete(id);
    return new Change(id, before, OptionalLong.empty());
  }

  /**
   * Deletes every consumer whose id matches {@code including} (the whole id; null: every consumer)
   * and not {@code excluding} (null: none excluded), also those whose file does not parse; what
   * each had, by id.
   */
  public List<Change> clear(Pattern including, Pattern excluding) {
    List<Change> cleared = new ArrayList<>();
    for (String id : consumers.ids()) {
      if ((including == null || including.matcher(id).matches())
          && (excluding == null || !excluding.matcher(id).matches())) {
        OptionalLong before = readable(id);
        consumers.delete(id);
        cleared.add(new Change(id, before, OptionalLong.empty()));
      }
    }
    return cleared;
  }

  /** Where consumer {@code id} resumes; empty when there is none or its file does not parse. */
  private OptionalLong readable(String id) {
    try {
      return consumers.nextSnapshot(id);
    } catch (UncheckedIOException e) {
      return OptionalLong.empty();
    }
  }

  private Optional<ConsumerManager.Position> readablePosition(String id) {
    try {
      return consumers.position(id);
    } catch (UncheckedIOException e) {
      return Optional.empty();
    }
  }

  private void record(String id, ConsumerManager.Position position) {
    try {
      consumers.record(id, position);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write consumer " + id + " of " + table.fullName(), e);
    }
  }

  /**
   * A pattern of consumer ids for {@link #clear}: null for null or blank (Paimon's placeholder for
   * an argument left out).
   *
   * @throws IllegalArgumentException when {@code regex} is not a regular expression
   */
  public static Pattern idPattern(String regex) {
    if (regex == null || regex.isBlank()) {
      return null;
    }
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(
          "'" + regex + "' is not a regular expression: " + e.getDescription(), e);
    }
  }

  /**
   * Refuses an id that cannot name a consumer.
   *
   * @throws IllegalArgumentException saying what an id may hold
   */
  public static void checkId(String id) {
    ConsumerManager.checkId(id)
        .ifPresent(
            m -> {
              throw new IllegalArgumentException(m);
            });
  }
}
