package io.sediment.maintenance;

import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.SnapshotManager;
import io.sediment.table.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
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
   * Makes consumer {@code id} resume at snapshot {@code nextSnapshot}, creating the consumer when
   * there is none: a snapshot still there, or the one after the latest (only later commits).
   *
   * @throws IllegalArgumentException for an id that cannot name a consumer or another snapshot;
   *     nothing is changed then
   * @throws IllegalStateException when an expiry deleted the snapshot while it was being set
   */
  public Change reset(String id, long nextSnapshot) {
    checkId(id);
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
    OptionalLong before = consumers.nextSnapshot(id);
    try {
      consumers.record(id, nextSnapshot);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write consumer " + id + " of " + table.fullName(), e);
    }
    // An expiry that read the consumers before this write may have deleted the snapshot since.
    OptionalLong earliest = snapshots.earliestId();
    if (earliest.isPresent() && earliest.getAsLong() > nextSnapshot) {
      throw new IllegalStateException(
          "Snapshot "
              + nextSnapshot
              + " of "
              + table.fullName()
              + " expired while consumer '"
              + id
              + "' was reset to it (the earliest is now "
              + earliest.getAsLong()
              + "): reset it again");
    }
    return new Change(id, before, OptionalLong.of(nextSnapshot));
  }

  /**
   * Deletes consumer {@code id}.
   *
   * @throws IllegalArgumentException when the table has no such consumer (naming those it has)
   */
  public Change delete(String id) {
    checkId(id);
    Map<String, ConsumerManager.Consumer> all = consumers.all();
    ConsumerManager.Consumer c = all.get(id);
    if (c == null) {
      throw new IllegalArgumentException(
          table.fullName()
              + " has no consumer '"
              + id
              + "'; "
              + (all.isEmpty() ? "it has none" : "its consumers are " + all.keySet()));
    }
    consumers.delete(id);
    return new Change(id, OptionalLong.of(c.nextSnapshot()), OptionalLong.empty());
  }

  /**
   * Deletes every consumer whose id matches {@code including} (the whole id; null: every consumer)
   * and not {@code excluding} (null: none excluded); what each had, by id.
   */
  public List<Change> clear(Pattern including, Pattern excluding) {
    List<Change> cleared = new ArrayList<>();
    for (Map.Entry<String, ConsumerManager.Consumer> e : consumers.all().entrySet()) {
      String id = e.getKey();
      if ((including == null || including.matcher(id).matches())
          && (excluding == null || !excluding.matcher(id).matches())) {
        consumers.delete(id);
        cleared.add(
            new Change(id, OptionalLong.of(e.getValue().nextSnapshot()), OptionalLong.empty()));
      }
    }
    return cleared;
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

  private static void checkId(String id) {
    ConsumerManager.checkId(id)
        .ifPresent(
            m -> {
              throw new IllegalArgumentException(m);
            });
  }
}
