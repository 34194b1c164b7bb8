package io.sediment.retention;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TagManager;
import io.sediment.schema.TagOptions;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paimon's {@code tag.automatic-creation = batch}: when a batch SQL write has committed, its
 * committer tags the table's latest snapshot {@code batch-write-<day>} (the day of its commit, in
 * local time) or {@code tag.batch.customized-name}, replacing a tag of that name ({@link
 * TagCreation#replace}). With {@code tag.num-retained-max}, the oldest {@code batch-write-<day>}
 * tags beyond it are then deleted with the files only they kept. The write has landed when this
 * runs, so it never throws: a failure is logged and returned.
 */
public final class TagBatchCreation {

  private static final Logger LOG = LoggerFactory.getLogger(TagBatchCreation.class);

  /** The names of the tags batch writes make without a customized name. */
  private static final Pattern BATCH_TAG = Pattern.compile("batch-write-\\d{4}-\\d{2}-\\d{2}");

  private TagBatchCreation() {}

  /** After a batch write into {@code store} committed. */
  public static TagAutoCreation.Outcome run(FileStore store, String tableName) {
    if (!store.options().get(TagOptions.TAG_AUTOMATIC_CREATION).equalsIgnoreCase("batch")) {
      return TagAutoCreation.Outcome.NOTHING;
    }
    List<String> created = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    try {
      Optional<Snapshot> latest = store.snapshotManager().latest();
      if (latest.isEmpty()) {
        return TagAutoCreation.Outcome.NOTHING;
      }
      Snapshot snapshot = latest.get();
      String custom = store.options().get(TagOptions.TAG_BATCH_CUSTOMIZED_NAME);
      String name =
          custom != null
              ? custom
              : "batch-write-"
                  + LocalDate.ofInstant(
                      Instant.ofEpochMilli(snapshot.timeMillis()), ZoneId.systemDefault());
      Duration retained = store.options().get(TagOptions.TAG_DEFAULT_TIME_RETAINED);
      TagManager tags = new TagManager(store.fileIO(), store.paths());
      Optional<TagManager.Tag> existing = tags.get(name);
      if (existing.isPresent()) {
        if (existing.get().snapshot().id() != snapshot.id()) {
          TagCreation.replace(store, tableName, existing.get(), snapshot, retained);
          created.add(name);
        }
      } else {
        if (TagCreation.createUnlessExists(store, tableName, name, snapshot, retained)) {
          created.add(name); // else another batch write made it first
        }
      }
      deleted.addAll(
          TagDeletion.keepNewest(
              store,
              tags,
              t -> BATCH_TAG.matcher(t.name()).matches(),
              Comparator.comparingLong((TagManager.Tag t) -> t.snapshot().id())
                  .thenComparing(TagManager.Tag::name)));
      if (!created.isEmpty() || !deleted.isEmpty()) {
        LOG.info("Batch tags of {}: made {}, deleted {}", tableName, created, deleted);
      }
      return new TagAutoCreation.Outcome(created, deleted, null);
    } catch (RuntimeException e) {
      LOG.warn(
          "Tagging the batch write into {} failed after its commit; make the tag with"
              + " sys.create_tag",
          tableName,
          e);
      return new TagAutoCreation.Outcome(created, deleted, e);
    }
  }
}
