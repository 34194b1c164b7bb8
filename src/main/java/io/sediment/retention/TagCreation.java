package io.sediment.retention;

import io.sediment.commit.SnapshotCommits;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TagManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;

/**
 * Writes a tag of a snapshot the way every tag is made (by {@code sys.create_tag} and by the
 * automatic tags after commits, docs/spec.md section 4.5): the tag file by exclusive create, then a
 * check that no expiration retires the snapshot. An expiration that created its record before the
 * check is seen by it (the tag is deleted again); one that creates its record later reads the tags
 * once it holds the record and keeps the tag's files.
 */
public final class TagCreation {

  /** Tag {@code name} exists already (made by another run). */
  public static final class TagExistsException extends IllegalArgumentException {
    TagExistsException(String message) {
      super(message);
    }
  }

  private TagCreation() {}

  /**
   * {@link #create}, for committers that race to make the same tag: returns false when a tag of
   * that name exists (another committer made it first).
   */
  static boolean createUnlessExists(
      FileStore store, String tableName, String name, Snapshot snapshot, Duration timeRetained) {
    try {
      create(store, tableName, name, snapshot, timeRetained);
      return true;
    } catch (TagExistsException e) {
      return false;
    }
  }

  /**
   * Makes tag {@code name} of {@code snapshot}, a snapshot that is there and readable, kept for
   * {@code timeRetained} after now (null: until it is deleted).
   *
   * @throws TagExistsException when a tag of that name exists (nothing is changed)
   * @throws IllegalStateException when an expiration retires the snapshot meanwhile; the tag is not
   *     there then
   */
  public static TagManager.Tag create(
      FileStore store, String tableName, String name, Snapshot snapshot, Duration timeRetained) {
    TagManager tags = new TagManager(store.fileIO(), store.paths());
    boolean created;
    try {
      created =
          SnapshotCommits.tryCreateGuarded(
              store,
              store.paths().tag(name),
              TagManager.fileContent(snapshot, store.clock().millis(), timeRetained));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write tag " + name + " of " + tableName, e);
    }
    if (!created) {
      throw new TagExistsException(
          "Tag '" + name + "' of " + tableName + " exists already; delete it first");
    }
    String refusal = checkAfterWrite(store, tags, name, snapshot);
    if (refusal != null) {
      throw new IllegalStateException(
          "Tag '"
              + name
              + "' of "
              + tableName
              + " was not made: "
              + refusal
              + "; tag a later snapshot");
    }
    return tags.get(name)
        .orElse(new TagManager.Tag(name, snapshot, store.clock().millis(), timeRetained));
  }

  /**
   * The check after tag {@code name} of {@code snapshot} was written: why it cannot stay (an
   * expiration retires its snapshot), having deleted it, or null. A check that fails deletes the
   * tag too: unchecked, it must not stay.
   */
  private static String checkAfterWrite(
      FileStore store, TagManager tags, String name, Snapshot snapshot) {
    String refusal;
    try {
      refusal =
          SnapshotExpiration.isRetiring(store, snapshot.id())
              ? "an expiration in progress retires snapshot " + snapshot.id()
              : store.snapshotManager().snapshotIfExists(snapshot.id()).isEmpty()
                  ? "snapshot " + snapshot.id() + " expired meanwhile"
                  : null;
    } catch (RuntimeException e) {
      try {
        tags.delete(name);
      } catch (RuntimeException undo) {
        e.addSuppressed(undo);
      }
      throw e;
    }
    if (refusal != null) {
      tags.delete(name);
    }
    return refusal;
  }

  /**
   * Makes existing tag {@code old} a tag of {@code snapshot} (a snapshot that is there and
   * readable), made now and kept for {@code timeRetained} (Paimon's {@code replace_tag}): the tag
   * file is replaced at once, then the files only the old tag kept are deleted.
   *
   * @throws IllegalStateException when an expiration retires {@code snapshot} meanwhile: the tag is
   *     deleted then (whether that expiration saw the old tag or the new one is not known, so
   *     neither can stay), with the files only the old one kept
   */
  public static TagManager.Tag replace(
      FileStore store,
      String tableName,
      TagManager.Tag old,
      Snapshot snapshot,
      Duration timeRetained) {
    TagManager tags = new TagManager(store.fileIO(), store.paths());
    String name = old.name();
    long now = store.clock().millis();
    tags.overwrite(name, TagManager.fileContent(snapshot, now, timeRetained));
    String refusal = checkAfterWrite(store, tags, name, snapshot);
    if (refusal != null) {
      TagDeletion.deleteFilesOf(store, List.of(old));
      throw new IllegalStateException(
          "Tag '"
              + name
              + "' of "
              + tableName
              + " was not replaced: "
              + refusal
              + "; it is deleted, create it of a later snapshot");
    }
    TagDeletion.deleteFilesOf(store, List.of(old));
    return tags.get(name).orElse(new TagManager.Tag(name, snapshot, now, timeRetained));
  }
}
