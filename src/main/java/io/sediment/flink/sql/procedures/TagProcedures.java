package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TagManager;
import io.sediment.table.Table;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * Paimon's tag procedures, on {@link Tags}. They return one row per tag: its name, the snapshot it
 * keeps (null for a deleted tag whose file did not parse), and {@code created}, {@code deleted},
 * {@code renamed}, {@code replaced} or {@code expired}.
 */
public final class TagProcedures {

  private TagProcedures() {}

  static final String ROW = "ROW<tag_name STRING, snapshot_id BIGINT, action STRING>";

  /**
   * The tag names of a {@code tag} argument: a comma-separated list, as in Paimon's {@code
   * delete_tag}; each name trimmed, empty parts and repeats dropped.
   */
  public static List<String> names(String list) {
    Set<String> out = new LinkedHashSet<>();
    if (list != null) {
      for (String part : list.split(",")) {
        if (!part.isBlank()) {
          out.add(part.strip());
        }
      }
    }
    return new ArrayList<>(out);
  }

  /**
   * {@code CALL c.sys.create_tag(`table` => 'db.t', tag => 'nightly', snapshot_id => 12)}: makes a
   * tag of that snapshot (without {@code snapshot_id}, of the latest).
   */
  public static final class Create implements Procedure {

    public static final String NAME = "create_tag";

    private final FileSystemCatalog catalog;

    public Create(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "tag", type = @DataTypeHint("STRING")) String tag,
        @ArgumentHint(name = "snapshot_id", type = @DataTypeHint("BIGINT"), isOptional = true)
            Long snapshotId,
        @ArgumentHint(name = "time_retained", type = @DataTypeHint("STRING"), isOptional = true)
            String timeRetained) {
      Tags tags = tagsOf(catalog, table, tag, Tags::checkNewName);
      return create(tags, tag, snapshotId(snapshotId), "snapshot_id", timeRetained(timeRetained));
    }
  }

  /**
   * {@code CALL c.sys.create_tag_from_timestamp(`table` => 'db.t', tag => 'day-1', timestamp =>
   * 1767225600000)}: makes a tag of the oldest snapshot still there committed at or after the
   * timestamp (epoch milliseconds), as Paimon's procedure.
   */
  public static final class CreateFromTimestamp implements Procedure {

    public static final String NAME = "create_tag_from_timestamp";

    private final FileSystemCatalog catalog;

    public CreateFromTimestamp(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "tag", type = @DataTypeHint("STRING")) String tag,
        @ArgumentHint(name = "timestamp", type = @DataTypeHint("BIGINT")) Long timestamp,
        @ArgumentHint(name = "time_retained", type = @DataTypeHint("STRING"), isOptional = true)
            String timeRetained) {
      return createAt(
          catalog,
          table,
          tag,
          timeRetained,
          "timestamp",
          timestamp,
          "the time",
          Tags::snapshotAtOrAfter);
    }
  }

  /**
   * {@code CALL c.sys.create_tag_from_watermark(`table` => 'db.t', tag => 'day-1', watermark =>
   * 1767225600000)}: makes a tag of the oldest snapshot still there whose watermark is at or after
   * the given one (epoch milliseconds), as Paimon's procedure.
   */
  public static final class CreateFromWatermark implements Procedure {

    public static final String NAME = "create_tag_from_watermark";

    private final FileSystemCatalog catalog;

    public CreateFromWatermark(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "tag", type = @DataTypeHint("STRING")) String tag,
        @ArgumentHint(name = "watermark", type = @DataTypeHint("BIGINT")) Long watermark,
        @ArgumentHint(name = "time_retained", type = @DataTypeHint("STRING"), isOptional = true)
            String timeRetained) {
      return createAt(
          catalog,
          table,
          tag,
          timeRetained,
          "watermark",
          watermark,
          "the watermark",
          Tags::snapshotAtOrAfterWatermark);
    }
  }

  /** How a procedure finds the snapshot of a point ({@code timestamp}, {@code watermark}). */
  private interface SnapshotAt {
    long find(Tags tags, long point);
  }

  /**
   * Makes a tag of the snapshot {@code at} finds for {@code point}, the value of argument {@code
   * argument} ({@code what} it is, in milliseconds since the epoch); refusals name the argument.
   */
  private static Row[] createAt(
      FileSystemCatalog catalog,
      String table,
      String tag,
      String timeRetained,
      String argument,
      Long point,
      String what,
      SnapshotAt at) {
    Tags tags = tagsOf(catalog, table, tag, Tags::checkNewName);
    Duration retained = timeRetained(timeRetained);
    if (point == null) {
      throw ProcedureArgs.bad(argument, "give " + what + " in milliseconds since the epoch");
    }
    long id;
    try {
      id = at.find(tags, point);
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad(argument, e);
    }
    return create(tags, tag, OptionalLong.of(id), argument, retained);
  }

  /** Paimon's {@code time_retained} ('7 d'), or null when not given. */
  private static Duration timeRetained(String text) {
    if (text == null) {
      return null;
    }
    Duration d = ProcedureArgs.duration("time_retained", text);
    try {
      return Tags.checkTimeRetained(d);
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad("time_retained", e);
    }
  }

  /** The tags of {@code table}, after the check of the tag's name the creating procedures share. */
  /** Argument {@code snapshot_id}: empty when not given (the latest snapshot). */
  private static OptionalLong snapshotId(Long snapshotId) {
    return snapshotId == null ? OptionalLong.empty() : OptionalLong.of(snapshotId);
  }

  /** The table's tags, once {@code checkName} accepted argument {@code tag}. */
  private static Tags tagsOf(
      FileSystemCatalog catalog, String table, String tag, Consumer<String> checkName) {
    Table t = ProcedureArgs.table(catalog, table);
    try {
      checkName.accept(tag);
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad("tag", e);
    }
    return new Tags(t);
  }

  /**
   * Makes the tag; a refusal names {@code snapshotArgument} (the argument that chose the snapshot)
   * or {@code tag}.
   */
  private static Row[] create(
      Tags tags, String tag, OptionalLong id, String snapshotArgument, Duration timeRetained) {
    return tag(tags, id, snapshotArgument, "created", s -> tags.create(tag, s, timeRetained));
  }

  /**
   * Makes a tag of snapshot {@code id} with {@code make}; a refusal names {@code snapshotArgument}
   * or {@code tag}. One row: the tag, its snapshot, {@code outcome}.
   */
  private static Row[] tag(
      Tags tags,
      OptionalLong id,
      String snapshotArgument,
      String outcome,
      Function<Snapshot, TagManager.Tag> make) {
    Snapshot snapshot;
    try {
      snapshot = tags.checkSnapshot(id);
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad(snapshotArgument, e);
    }
    TagManager.Tag made;
    try {
      made = make.apply(snapshot);
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad("tag", e);
    }
    return new Row[] {Row.of(made.name(), made.snapshot().id(), outcome)};
  }

  /**
   * {@code CALL c.sys.replace_tag(`table` => 'db.t', tag => 'nightly', snapshot_id => 15)}: makes
   * an existing tag a tag of that snapshot (without {@code snapshot_id}, of the latest), made now,
   * as Paimon's procedure; the files only the old tag kept are deleted. One row: the tag, its new
   * snapshot, {@code replaced}.
   */
  public static final class Replace implements Procedure {

    public static final String NAME = "replace_tag";

    private final FileSystemCatalog catalog;

    public Replace(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "tag", type = @DataTypeHint("STRING")) String tag,
        @ArgumentHint(name = "snapshot_id", type = @DataTypeHint("BIGINT"), isOptional = true)
            Long snapshotId,
        @ArgumentHint(name = "time_retained", type = @DataTypeHint("STRING"), isOptional = true)
            String timeRetained) {
      Tags tags = tagsOf(catalog, table, tag, Tags::checkName);
      Duration retained = timeRetained(timeRetained);
      return tag(
          tags,
          snapshotId(snapshotId),
          "snapshot_id",
          "replaced",
          s -> tags.replace(tag, s, retained));
    }
  }

  /**
   * {@code CALL c.sys.rename_tag(`table` => 'db.t', tag_name => 'old', target_tag_name => 'new')}:
   * the same tag under a new name (Paimon's procedure). One row: the new name, its snapshot, {@code
   * renamed}.
   */
  public static final class Rename implements Procedure {

    public static final String NAME = "rename_tag";

    private final FileSystemCatalog catalog;

    public Rename(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "tag_name", type = @DataTypeHint("STRING")) String tagName,
        @ArgumentHint(name = "target_tag_name", type = @DataTypeHint("STRING"))
            String targetTagName) {
      Table t = ProcedureArgs.table(catalog, table);
      try {
        Tags.checkName(tagName);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("tag_name", e);
      }
      try {
        Tags.checkNewName(targetTagName);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("target_tag_name", e);
      }
      TagManager.Tag renamed;
      try {
        renamed = new Tags(t).rename(tagName, targetTagName);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad(
            e.getMessage().contains("exists already") ? "target_tag_name" : "tag_name", e);
      }
      return new Row[] {Row.of(renamed.name(), renamed.snapshot().id(), "renamed")};
    }
  }

  /**
   * {@code CALL c.sys.expire_tags(`table` => 'db.t', older_than => '2024-06-01 00:00:00')}: deletes
   * the tags whose {@code time_retained} ran out and, with {@code older_than} (a time, or an age
   * such as {@code '30 d'}), every tag made before it, then the files only they kept (Paimon's
   * procedure). One row per tag deleted.
   */
  public static final class Expire implements Procedure {

    public static final String NAME = "expire_tags";

    private final FileSystemCatalog catalog;

    public Expire(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "older_than", type = @DataTypeHint("STRING"), isOptional = true)
            String olderThan) {
      Table t = ProcedureArgs.table(catalog, table);
      OptionalLong before =
          olderThan == null
              ? OptionalLong.empty()
              : OptionalLong.of(ProcedureArgs.pointInTime("older_than", olderThan));
      return new Tags(t)
          .expire(before).stream()
              .map(d -> Row.of(d.name(), d.snapshot().id(), "expired"))
              .toArray(Row[]::new);
    }
  }

  /**
   * {@code CALL c.sys.delete_tag(`table` => 'db.t', tag => 'a,b')}: deletes the tags named (a
   * comma-separated list), then the files only they referenced.
   */
  public static final class Delete implements Procedure {

    public static final String NAME = "delete_tag";

    private final FileSystemCatalog catalog;

    public Delete(FileSystemCatalog catalog) {
      this.catalog = catalog;
    }

    @ProcedureHint(output = @DataTypeHint(ROW))
    public Row[] call(
        ProcedureContext context,
        @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
        @ArgumentHint(name = "tag", type = @DataTypeHint("STRING")) String tag) {
      Table t = ProcedureArgs.table(catalog, table);
      List<String> names = names(tag);
      Tags.Deleted deleted;
      try {
        names.forEach(Tags::checkName);
        deleted = new Tags(t).delete(names);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("tag", e);
      }
      Map<String, TagManager.Tag> read =
          deleted.tags().stream()
              .collect(Collectors.toMap(TagManager.Tag::name, Function.identity()));
      return names.stream()
          .map(
              n -> {
                TagManager.Tag d = read.get(n);
                return Row.of(n, d == null ? null : d.snapshot().id(), "deleted");
              })
          .toArray(Row[]::new);
    }
  }
}
