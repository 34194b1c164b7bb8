package io.sediment.maintenance;

import io.sediment.commit.SnapshotCommits;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.SnapshotWatermarks;
import io.sediment.manifest.TagManager;
import io.sediment.retention.TableFiles;
import io.sediment.retention.TagCreation;
import io.sediment.retention.TagDeletion;
import io.sediment.retention.TagExpiry;
import io.sediment.schema.TagOptions;
import io.sediment.table.Table;
import io.sediment.table.TableScan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.core.fs.Path;

/**
 * The tags of a table as an operator makes and deletes them ({@code CALL sys.create_tag} and {@code
 * sys.delete_tag}, Paimon's procedures): a tag keeps one snapshot readable ({@code scan.tag-name})
 * after snapshot expiry has retired it, and keeps its files from expiry and orphan removal until
 * the tag is deleted.
 *
 * <p>A tag is made only of a snapshot that is there and that no expiration in progress retires,
 * checked after the tag file is written: an expiration that created its record before that check is
 * seen by it (the tag is deleted again and the creation fails), one that creates its record later
 * reads the tags once it holds the record and keeps the tag's files.
 */
public final class Tags {

  private final Table table;
  private final FileStore store;
  private final TagManager tags;
  private final SnapshotManager snapshots;

  public Tags(Table table) {
    this.table = table;
    this.store = table.store();
    this.tags = new TagManager(store.fileIO(), store.paths());
    this.snapshots = table.snapshotManager();
  }

  /**
   * What a deletion did: the tags deleted (those whose file parsed) and the files only they
   * referenced.
   */
  public record Deleted(List<TagManager.Tag> tags, int dataFiles, int metadataFiles) {}

  /** Every tag of the table, by name. */
  public Map<String, TagManager.Tag> all() {
    return tags.all();
  }

  /**
   * Makes tag {@code name} of snapshot {@code snapshotId} (empty: the latest).
   *
   * @throws IllegalArgumentException for a name that a tag cannot have ({@link #checkNewName}), a
   *     snapshot a tag cannot keep ({@link #checkSnapshot}) or a tag of that name that exists;
   *     nothing is changed then
   * @throws IllegalStateException when an expiration retires the snapshot while the tag is being
   *     made; the tag is not there then
   */
  public TagManager.Tag create(String name, OptionalLong snapshotId) {
    checkNewName(name);
    return create(name, checkSnapshot(snapshotId));
  }

  /**
   * Makes tag {@code name} of {@code snapshot}, one {@link #checkSnapshot} returned (so that a
   * caller that checked it, to name its own argument, does not read it again).
   *
   * @throws IllegalArgumentException for a name that a tag cannot have ({@link #checkNewName}) or a
   *     tag of that name that exists; nothing is changed then
   * @throws IllegalStateException when an expiration retires the snapshot while the tag is being
   *     made; the tag is not there then
   */
  public TagManager.Tag create(String name, Snapshot snapshot) {
    return create(name, snapshot, null);
  }

  /**
   * Makes tag {@code name} of {@code snapshot} kept for {@code timeRetained} (Paimon's {@code
   * time_retained}; null: the table's {@code tag.default-time-retained}, and without it until the
   * tag is deleted). See {@link #create(String, Snapshot)}.
   */
  public TagManager.Tag create(String name, Snapshot snapshot, Duration timeRetained) {
    checkNewName(name);
    if (timeRetained != null) {
      checkTimeRetained(timeRetained);
    }
    Duration retained =
        timeRetained != null
            ? timeRetained
            : store.options().get(TagOptions.TAG_DEFAULT_TIME_RETAINED);
    return TagCreation.create(store, table.fullName(), name, snapshot, retained);
  }

  /**
   * Makes tag {@code name}, which exists, a tag of {@code snapshot} (one {@link #checkSnapshot}
   * returned), made now and kept for {@code timeRetained} (null: until deleted, as in Paimon, whose
   * {@code replace_tag} does not apply {@code tag.default-time-retained}). Then the files only the
   * old tag kept are deleted.
   *
   * @throws IllegalArgumentException when the table has no such tag, naming those it has; nothing
   *     is changed then
   * @throws IllegalStateException when an expiration retires the snapshot meanwhile: the tag is
   *     deleted then
   */
  public TagManager.Tag replace(String name, Snapshot snapshot, Duration timeRetained) {
    checkName(name);
    if (timeRetained != null) {
      checkTimeRetained(timeRetained);
    }
    TagManager.Tag old = tags.get(name).orElseThrow(() -> noTag(table, name, tags.names()));
    return TagCreation.replace(store, table.fullName(), old, snapshot, timeRetained);
  }

  /**
   * Deletes the tags whose {@code time_retained} ran out, and with {@code olderThanMillis} every
   * tag made before it ({@code CALL sys.expire_tags}), then the files only they kept. Returns the
   * tags deleted.
   */
  public List<TagManager.Tag> expire(OptionalLong olderThanMillis) {
    return TagExpiry.expire(store, store.clock().millis(), olderThanMillis);
  }

  /**
   * Deletes the tags {@code names}, then the files only they referenced (those of snapshots that
   * expired meanwhile).
   *
   * @throws IllegalArgumentException when a name is not a tag of the table (naming those it has);
   *     nothing is deleted then
   */
  public Deleted delete(List<String> names) {
    Set<String> unique = new LinkedHashSet<>(names);
    if (unique.isEmpty()) {
      throw new IllegalArgumentException("Give the name of a tag to delete");
    }
    Set<String> there = tags.names();
    for (String name : unique) {
      checkName(name);
      if (!there.contains(name)) {
        throw noTag(table, name, there);
      }
    }
    List<TagManager.Tag> deleted = new ArrayList<>();
    for (String name : unique) {
      readable(name).ifPresent(deleted::add); // a tag that does not parse is deleted all the same
      tags.delete(name);
    }
    TagDeletion.Result files = TagDeletion.deleteFilesOf(store, deleted);
    return new Deleted(List.copyOf(deleted), files.dataFiles(), files.metadataFiles());
  }

  /**
   * Renames tag {@code from} to {@code to} (Paimon's {@code rename_tag}): the same snapshot, made
   * at the same time, with the same retention. The new tag file is created before the old one is
   * deleted, so at every moment one of them keeps the snapshot's files from expiry and orphan
   * removal.
   *
   * @throws IllegalArgumentException when {@code from} is not a tag of the table (naming those it
   *     has), {@code to} cannot name a tag made by hand or a tag of that name exists; nothing is
   *     changed then
   */
  public TagManager.Tag rename(String from, String to) {
    checkName(from);
    checkNewName(to);
    TagManager.Tag old = tags.get(from).orElseThrow(() -> noTag(table, from, tags.names()));
    byte[] content =
        TagManager.fileContent(old.snapshot(), old.createdMillis(), old.timeRetained());
    boolean created;
    try {
      created = SnapshotCommits.tryCreateGuarded(store, store.paths().tag(to), content);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write tag " + to + " of " + table.fullName(), e);
    }
    if (!created) {
      throw new IllegalArgumentException(
          "Tag '" + to + "' of " + table.fullName() + " exists already; delete it first");
    }
    if (!tags.delete(from)) {
      // Deleted meanwhile (an automatic tag's retention, a delete_tag), perhaps with the files only
      // it kept, which the new name would then point at: nothing renamed.
      tags.delete(to);
      throw new IllegalStateException(
          "Tag '"
              + from
              + "' of "
              + table.fullName()
              + " was deleted while being renamed to '"
              + to
              + "': nothing was renamed");
    }
    return tags.get(to)
        .orElseThrow(
            () -> new IllegalStateException("Tag '" + to + "' was deleted while being renamed"));
  }

  /**
   * Refuses a tag retention that is not longer than zero (the caller names its argument); returns
   * it.
   */
  public static Duration checkTimeRetained(Duration timeRetained) {
    if (timeRetained.isNegative() || timeRetained.isZero()) {
      throw new IllegalArgumentException("must be longer than zero, like '7 d'");
    }
    return timeRetained;
  }

  /** The refusal of tag {@code name} that {@code table} does not have, naming those it has. */
  static IllegalArgumentException noTag(Table table, String name, Set<String> there) {
    return new IllegalArgumentException(
        table.fullName()
            + " has no tag '"
            + name
            + "'; "
            + (there.isEmpty() ? "it has none" : "its tags are " + there));
  }

  private Optional<TagManager.Tag> readable(String name) {
    try {
      return tags.get(name);
    } catch (UncheckedIOException e) {
      return Optional.empty();
    }
  }

  /**
   * The id of the oldest snapshot still there committed at or after {@code millis} (epoch
   * milliseconds): what {@code CALL sys.create_tag_from_timestamp} tags, as in Paimon.
   *
   * @throws IllegalArgumentException when no snapshot there was committed that late, naming the
   *     latest snapshot's time
   */
  public long snapshotAtOrAfter(long millis) {
    // the one after the newest committed before it (TableScan's search), else the earliest
    Optional<Snapshot> before =
        millis == Long.MIN_VALUE ? Optional.empty() : TableScan.atOrBefore(snapshots, millis - 1);
    OptionalLong next =
        before.isPresent() ? OptionalLong.of(before.get().id() + 1) : snapshots.earliestId();
    if (next.isPresent() && snapshots.snapshotIfExists(next.getAsLong()).isPresent()) {
      return next.getAsLong();
    }
    Optional<Snapshot> latest = snapshots.latest();
    throw new IllegalArgumentException(
        "No snapshot of "
            + table.fullName()
            + " was committed at or after "
            + Instant.ofEpochMilli(millis)
            + " ("
            + millis
            + "); "
            + (latest.isEmpty()
                ? "it has no snapshot yet"
                : "the latest, "
                    + latest.get().id()
                    + ", was committed "
                    + Instant.ofEpochMilli(latest.get().timeMillis())));
  }

  /**
   * The id of the oldest snapshot still there whose watermark is at least {@code watermark}: what
   * {@code CALL sys.create_tag_from_watermark} tags, as in Paimon.
   *
   * @throws IllegalArgumentException when no snapshot has so late a watermark, naming the
   *     watermarks there are
   */
  public long snapshotAtOrAfterWatermark(long watermark) {
    return SnapshotWatermarks.firstAtOrAfter(snapshots, watermark)
        .map(Snapshot::id)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "No snapshot of "
                        + table.fullName()
                        + " has a watermark at or after "
                        + watermark
                        + "; "
                        + SnapshotWatermarks.describe(snapshots)));
  }

  /**
   * The snapshot a tag of {@code id} (empty: the latest) would keep.
   *
   * @throws IllegalArgumentException when it is not there, naming the snapshots there are, or
   *     cannot be read (an interrupted expiration retired it)
   */
  public Snapshot checkSnapshot(OptionalLong id) {
    return readableSnapshot(table, id, "tag");
  }

  /**
   * Snapshot {@code id} (empty: the latest) for an operation that needs it readable; a refusal ends
   * with advice on what to {@code verb} instead ("tag", "roll back to").
   */
  static Snapshot readableSnapshot(Table table, OptionalLong id, String verb) {
    FileStore store = table.store();
    SnapshotManager snapshots = table.snapshotManager();
    Optional<Snapshot> s =
        id.isPresent() ? snapshots.snapshotIfExists(id.getAsLong()) : snapshots.latest();
    if (s.isPresent()) {
      Optional<Path> missing = TableFiles.missingFileOf(store, s.get());
      if (missing.isPresent()) {
        throw new IllegalArgumentException(
            "Snapshot "
                + s.get().id()
                + " of "
                + table.fullName()
                + " cannot be read ("
                + missing.get()
                + " does not exist): it is expired; "
                + verb
                + " a later snapshot");
      }
      return s.get();
    }
    OptionalLong earliest = snapshots.earliestId();
    OptionalLong latest = snapshots.latestId();
    String have =
        latest.isEmpty()
            ? table.fullName() + " has no snapshot yet: there is nothing to " + verb
            : table.fullName()
                + " has snapshots "
                + earliest.orElse(latest.getAsLong())
                + " to "
                + latest.getAsLong();
    throw new IllegalArgumentException(
        id.isPresent() ? "Snapshot " + id.getAsLong() + " is not there; " + have : have);
  }

  /**
   * Refuses a name that cannot name a tag (to read or delete one).
   *
   * @throws IllegalArgumentException saying what a name may hold
   */
  public static void checkName(String name) {
    refuse(TagManager.checkName(name));
  }

  /**
   * Refuses a name that a tag made by hand cannot have: {@link #checkName}, and not digits only.
   *
   * @throws IllegalArgumentException saying what a name may hold
   */
  public static void checkNewName(String name) {
    refuse(TagManager.checkNewName(name));
  }

  private static void refuse(Optional<String> refusal) {
    if (refusal.isPresent()) {
      throw new IllegalArgumentException(refusal.get());
    }
  }
}
