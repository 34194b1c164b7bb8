package io.sediment.retention;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.TagManager;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TagOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the tags whose {@code time_retained} ran out (Paimon's tag time expiry), then the files
 * only they kept ({@link TagDeletion}). A committer of a table that uses tag retention or automatic
 * tags ({@link #automatic}) runs it after its commits, listing the tags at its first commit, when
 * one it knows of is due, and {@link #RECHECK} after its last listing (a tag made elsewhere is seen
 * within that); {@code sys.expire_tags} runs it at once, also for the tags made before a time.
 */
public final class TagExpiry {

  private static final Logger LOG = LoggerFactory.getLogger(TagExpiry.class);

  /** The longest a committer goes without listing the tags. */
  public static final Duration RECHECK = Duration.ofHours(1);

  /** What one run after a commit did: the tags it deleted, or its failure. */
  public record Outcome(List<String> deleted, RuntimeException failure) {
    public static final Outcome NOTHING = new Outcome(List.of(), null);

    public boolean failed() {
      return failure != null;
    }
  }

  private final String tableName;

  /** When this committer lists the tags next (epoch milliseconds); the first commit lists. */
  private long nextCheck = Long.MIN_VALUE;

  public TagExpiry(String tableName) {
    this.tableName = tableName;
  }

  /**
   * Whether committers of the table delete tags whose time ran out: when it gives new tags a
   * retention ({@code tag.default-time-retained}) or makes tags on its own ({@code
   * tag.automatic-creation}). Otherwise a commit lists nothing for it, and {@code sys.expire_tags}
   * deletes them.
   */
  public static boolean automatic(TableOptions options) {
    return options.get(TagOptions.TAG_DEFAULT_TIME_RETAINED) != null
        || !options.get(TagOptions.TAG_AUTOMATIC_CREATION).equalsIgnoreCase("none");
  }

  /** After a commit to {@code store}. Never throws. */
  public Outcome run(FileStore store) {
    if (!automatic(store.options())) {
      return Outcome.NOTHING;
    }
    long now = store.clock().millis();
    if (now < nextCheck) {
      return Outcome.NOTHING;
    }
    try {
      TagManager tags = new TagManager(store.fileIO(), store.paths());
      long next = saturatedAdd(now, RECHECK.toMillis());
      List<TagManager.Tag> expired = new ArrayList<>();
      for (TagManager.Tag t : tags.all().values()) {
        if (t.expiredAt(now)) {
          expired.add(t);
        } else if (t.timeRetained() != null) {
          next = Math.min(next, saturatedAdd(t.createdMillis(), millis(t.timeRetained()) + 1));
        }
      }
      List<String> deleted = delete(store, tags, expired);
      nextCheck = next;
      if (!deleted.isEmpty()) {
        LOG.info("Expired tags of {} (time_retained ran out): {}", tableName, deleted);
      }
      return new Outcome(deleted, null);
    } catch (RuntimeException e) {
      nextCheck = saturatedAdd(now, RECHECK.toMillis());
      LOG.warn(
          "Tag expiry of {} failed after a successful commit; it is tried again in {}",
          tableName,
          RECHECK,
          e);
      return new Outcome(List.of(), e);
    }
  }

  /**
   * Deletes now, as {@code sys.expire_tags}: the tags whose time ran out at {@code nowMillis}, and,
   * with {@code olderThanMillis}, every tag made before it whatever its retention (Paimon's {@code
   * older_than}); then the files only they kept. Returns the tags deleted.
   */
  public static List<TagManager.Tag> expire(
      FileStore store, long nowMillis, OptionalLong olderThanMillis) {
    TagManager tags = new TagManager(store.fileIO(), store.paths());
    List<TagManager.Tag> expired = new ArrayList<>();
    for (TagManager.Tag t : tags.all().values()) {
      if (t.expiredAt(nowMillis)
          || (olderThanMillis.isPresent() && t.createdMillis() < olderThanMillis.getAsLong())) {
        expired.add(t);
      }
    }
    List<String> deleted = delete(store, tags, expired);
    return expired.stream().filter(t -> deleted.contains(t.name())).toList();
  }

  /**
   * Deletes each tag unless it changed since it was read (deleted, and made again by another
   * committer, which must not lose it before its own time); then the files only the deleted ones
   * kept. Returns the names deleted.
   */
  private static List<String> delete(
      FileStore store, TagManager tags, List<TagManager.Tag> expired) {
    List<TagManager.Tag> deleted = new ArrayList<>();
    for (TagManager.Tag t : expired) {
      Optional<TagManager.Tag> now = tags.get(t.name());
      if (now.isPresent()
          && now.get().createdMillis() == t.createdMillis()
          && now.get().snapshot().id() == t.snapshot().id()
          && tags.delete(t.name())) {
        deleted.add(t);
      }
    }
    if (!deleted.isEmpty()) {
      TagDeletion.deleteFilesOf(store, deleted);
    }
    return deleted.stream().map(TagManager.Tag::name).toList();
  }

  private static long millis(Duration d) {
    try {
      return d.toMillis();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE - 1;
    }
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }
}
