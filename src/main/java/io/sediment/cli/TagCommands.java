package io.sediment.cli;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.flink.sql.procedures.TagProcedures;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TagManager;
import io.sediment.schema.Durations;
import io.sediment.table.Table;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The tag commands: {@link Tags} with the arguments of Paimon's procedures. */
final class TagCommands {

  private TagCommands() {}

  /** {@code sediment create-tag}: as {@code CALL sys.create_tag}. */
  @Command(
      name = "create-tag",
      mixinStandardHelpOptions = true,
      description =
          "Make a tag of a snapshot (as CALL sys.create_tag): a batch read with scan.tag-name"
              + " reads it, and its files are kept from expiry until the tag is deleted.")
  static final class Create implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin WarehouseOption warehouseOption;

    @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
    String table;

    @Option(names = "--tag", required = true, description = "The tag's name.")
    String tag;

    @Option(
        names = "--snapshot-id",
        description = "The snapshot to tag, one still there (default: the latest).")
    Long snapshotId;

    @Option(
        names = "--timestamp",
        description =
            "Tag the oldest snapshot still there committed at or after this time, in milliseconds"
                + " since the epoch (as CALL sys.create_tag_from_timestamp); not with"
                + " --snapshot-id.")
    Long timestamp;

    @Option(
        names = "--watermark",
        description =
            "Tag the oldest snapshot still there whose watermark is at or after this one, in"
                + " milliseconds since the epoch (as CALL sys.create_tag_from_watermark); not with"
                + " --snapshot-id or --timestamp.")
    Long watermark;

    @Option(
        names = "--time-retained",
        description =
            "Keep the tag this long, like '7 d'; then committers delete it (default: the table's"
                + " tag.default-time-retained, or until deleted).")
    String timeRetained;

    @Mixin VerboseOption verbose;

    @Override
    public Integer call() {
      OptionRefusals.check("--tag", () -> Tags.checkNewName(tag));
      Duration retained = timeRetained(timeRetained);
      if ((snapshotId != null ? 1 : 0) + (timestamp != null ? 1 : 0) + (watermark != null ? 1 : 0)
          > 1) {
        throw new IllegalArgumentException(
            (watermark != null ? "--watermark" : "--timestamp")
                + ": give one of --snapshot-id, --timestamp or --watermark, not more");
      }
      Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
      Tags tags = new Tags(t);
      String chosenBy =
          timestamp != null ? "--timestamp" : watermark != null ? "--watermark" : "--snapshot-id";
      OptionalLong id =
          timestamp != null
              ? OptionalLong.of(
                  OptionRefusals.named(chosenBy, () -> tags.snapshotAtOrAfter(timestamp)))
              : watermark != null
                  ? OptionalLong.of(
                      OptionRefusals.named(
                          chosenBy, () -> tags.snapshotAtOrAfterWatermark(watermark)))
                  : snapshotId(snapshotId);
      Snapshot snapshot = OptionRefusals.named(chosenBy, () -> tags.checkSnapshot(id));
      TagManager.Tag created =
          OptionRefusals.named("--tag", () -> tags.create(tag, snapshot, retained));
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "Created tag '"
              + created.name()
              + "' of "
              + t.fullName()
              + " at snapshot "
              + created.snapshot().id());
      out.flush();
      return ExitCodes.OK;
    }
  }

  /** Option {@code --time-retained}: null when not given. */
  private static Duration timeRetained(String text) {
    return text == null
        ? null
        : OptionRefusals.named("--time-retained", () -> positiveDuration(text));
  }

  /** Option {@code --snapshot-id}: empty when not given (the latest snapshot). */
  private static OptionalLong snapshotId(Long id) {
    return id == null ? OptionalLong.empty() : OptionalLong.of(id);
  }

  private static Duration positiveDuration(String text) {
    return Tags.checkTimeRetained(Durations.withUnit(text));
  }

  /** {@code sediment rename-tag}: as {@code CALL sys.rename_tag}. */
  @Command(
      name = "rename-tag",
      mixinStandardHelpOptions = true,
      description = "Rename a tag (as CALL sys.rename_tag): the same snapshot, time and retention.")
  static final class Rename implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin WarehouseOption warehouseOption;

    @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
    String table;

    @Option(names = "--tag", required = true, description = "The tag to rename.")
    String tag;

    @Option(names = "--target-tag", required = true, description = "Its new name.")
    String targetTag;

    @Mixin VerboseOption verbose;

    @Override
    public Integer call() {
      OptionRefusals.check("--tag", () -> Tags.checkName(tag));
      OptionRefusals.check("--target-tag", () -> Tags.checkNewName(targetTag));
      Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
      TagManager.Tag renamed;
      try {
        renamed = new Tags(t).rename(tag, targetTag);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            (e.getMessage().contains("exists already") ? "--target-tag: " : "--tag: ")
                + e.getMessage(),
            e);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "Renamed tag '"
              + tag
              + "' of "
              + t.fullName()
              + " to '"
              + renamed.name()
              + "' (snapshot "
              + renamed.snapshot().id()
              + ")");
      out.flush();
      return ExitCodes.OK;
    }
  }

  /** {@code sediment replace-tag}: as {@code CALL sys.replace_tag}. */
  @Command(
      name = "replace-tag",
      mixinStandardHelpOptions = true,
      description =
          "Make an existing tag a tag of another snapshot (as CALL sys.replace_tag), made now;"
              + " the files only the old tag kept are deleted.")
  static final class Replace implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin WarehouseOption warehouseOption;

    @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
    String table;

    @Option(names = "--tag", required = true, description = "The tag to replace.")
    String tag;

    @Option(
        names = "--snapshot-id",
        description = "The snapshot it keeps from now on, one still there (default: the latest).")
    Long snapshotId;

    @Option(
        names = "--time-retained",
        description =
            "Keep the tag this long from now, like '7 d' (default: until it is deleted, as"
                + " Paimon's replace_tag).")
    String timeRetained;

    @Mixin VerboseOption verbose;

    @Override
    public Integer call() {
      OptionRefusals.check("--tag", () -> Tags.checkName(tag));
      Duration retained = timeRetained(timeRetained);
      Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
      Tags tags = new Tags(t);
      OptionalLong id = snapshotId(snapshotId);
      Snapshot snapshot = OptionRefusals.named("--snapshot-id", () -> tags.checkSnapshot(id));
      TagManager.Tag replaced =
          OptionRefusals.named("--tag", () -> tags.replace(tag, snapshot, retained));
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "Replaced tag '"
              + replaced.name()
              + "' of "
              + t.fullName()
              + ": it keeps snapshot "
              + replaced.snapshot().id());
      out.flush();
      return ExitCodes.OK;
    }
  }

  /** {@code sediment expire-tags}: as {@code CALL sys.expire_tags}. */
  @Command(
      name = "expire-tags",
      mixinStandardHelpOptions = true,
      description =
          "Delete the tags whose time_retained ran out (as CALL sys.expire_tags) and, with"
              + " --older-than, every tag made before that time, then the files only they kept.")
  static final class Expire implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin WarehouseOption warehouseOption;

    @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
    String table;

    @Option(
        names = "--older-than",
        description =
            "Also delete every tag made before this: a timestamp like '2024-05-01 10:00:00' or an"
                + " age like '30 d'.")
    String olderThan;

    @Mixin VerboseOption verbose;

    @Override
    public Integer call() {
      OptionalLong before =
          olderThan == null
              ? OptionalLong.empty()
              : OptionalLong.of(ExpireSnapshotsCommand.parseOlderThan(olderThan));
      Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
      List<TagManager.Tag> expired = new Tags(t).expire(before);
      PrintWriter out = spec.commandLine().getOut();
      for (TagManager.Tag d : expired) {
        out.println(
            "Expired tag '"
                + d.name()
                + "' of "
                + t.fullName()
                + " (snapshot "
                + d.snapshot().id()
                + ")");
      }
      out.println("Expired " + Plurals.of(expired.size(), "tag") + " of " + t.fullName());
      out.flush();
      return ExitCodes.OK;
    }
  }

  /** {@code sediment delete-tag}: as {@code CALL sys.delete_tag}. */
  @Command(
      name = "delete-tag",
      mixinStandardHelpOptions = true,
      description =
          "Delete tags (as CALL sys.delete_tag), then the files only they referenced: those of"
              + " snapshots that expired meanwhile.")
  static final class Delete implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin WarehouseOption warehouseOption;

    @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
    String table;

    @Option(
        names = "--tag",
        required = true,
        description = "The tag to delete, or several separated by commas: a,b.")
    String tag;

    @Mixin VerboseOption verbose;

    @Override
    public Integer call() {
      List<String> names = TagProcedures.names(tag);
      OptionRefusals.check("--tag", () -> names.forEach(Tags::checkName));
      Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
      Tags.Deleted deleted = OptionRefusals.named("--tag", () -> new Tags(t).delete(names));
      PrintWriter out = spec.commandLine().getOut();
      for (String name : names) {
        String snapshot =
            deleted.tags().stream()
                .filter(d -> d.name().equals(name))
                .findFirst()
                .map(d -> "snapshot " + d.snapshot().id())
                .orElse("its file did not parse");
        out.println("Deleted tag '" + name + "' of " + t.fullName() + " (" + snapshot + ")");
      }
      out.println(
          "Deleted "
              + Plurals.of(names.size(), "tag")
              + " of "
              + t.fullName()
              + "; deleted "
              + Plurals.of(deleted.dataFiles(), "data file")
              + " and "
              + Plurals.of(deleted.metadataFiles(), "metadata file")
              + " only "
              + (names.size() == 1 ? "it" : "they")
              + " referenced");
      out.flush();
      return ExitCodes.OK;
    }
  }
}
