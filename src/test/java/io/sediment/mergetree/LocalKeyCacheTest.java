package io.sediment.mergetree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.data.BinaryRows;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lookup files' format, (int position, int length, binary row) with big-endian ints, is what
 * {@link LocalKeyCache.Builder} writes and {@link LocalKeyCache.Cursor} reads, whatever the rows'
 * sizes against the reader's and writer's buffers: generated rows from a few bytes to several
 * buffers long, checked against the format written with {@link DataOutputStream} (the way lookup
 * files were written before, so files already in a cache read the same).
 */
class LocalKeyCacheTest {

  @TempDir Path dir;
  @TempDir Path cache;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void rowsOfAnySizeReadBackAsWrittenInTheFormat(int seed) throws Exception {
    Table t = table();
    KeyValueLayout layout = new KeyValueLayout(t.store().schema());
    LocalKeyCache keys = new LocalKeyCache(t.store(), layout);
    RowType type = layout.fileType();
    RowDataSerializer serializer = new RowDataSerializer(type);
    Random rnd = new Random(seed);

    // three data files' rows, the last of none
    List<List<byte[]>> files = new ArrayList<>();
    try (LocalKeyCache.Builder builder = keys.builder()) {
      for (int file = 0; file < 3; file++) {
        List<byte[]> rows = new ArrayList<>();
        for (int i = 0, n = file == 2 ? 0 : rnd.nextInt(300); i < n; i++) {
          GenericRowData row = new GenericRowData(type.getFieldCount());
          for (int c = 0; c < row.getArity(); c++) {
            row.setField(c, value(type, c, rnd));
          }
          rows.add(BinaryRows.toBytes(serializer.toBinaryRow(row).copy()));
          builder.add(row);
        }
        builder.endFile();
        files.add(rows);
      }
      builder.publish(List.of("a.parquet", "b.parquet", "c.parquet"));
    }
    String[] names = {"a", "b", "c"};
    for (int file = 0; file < 3; file++) {
      File written = new File(keys.directory(), names[file] + ".parquet.s0.keys");
      List<byte[]> rows = files.get(file);
      assertThat(Files.readAllBytes(written.toPath()))
          .as("file %d in the format", file)
          .isEqualTo(format(rows));
      try (LocalKeyCache.Cursor cursor = keys.open(written)) {
        for (int i = 0; i < rows.size(); i++) {
          BinaryRowData row = cursor.next();
          assertThat(row).as("row %d of %d", i, rows.size()).isNotNull();
          assertThat(cursor.position()).isEqualTo(i);
          assertThat(BinaryRows.toBytes(row)).isEqualTo(rows.get(i));
        }
        assertThat(cursor.next()).isNull();
        assertThat(cursor.next()).as("still at the end").isNull();
      }
      if (!rows.isEmpty()) {
        // cut inside the last row, or inside its position and length
        byte[] whole = format(rows);
        int cut = whole.length - 1 - rnd.nextInt(Math.min(whole.length - 1, 8 + 4));
        Files.write(written.toPath(), Arrays.copyOf(whole, cut));
        try (LocalKeyCache.Cursor cursor = keys.open(written)) {
          assertThatThrownBy(
                  () -> {
                    while (cursor.next() != null) {}
                  })
              .isInstanceOf(EOFException.class)
              .hasMessageContaining(written.getName())
              .hasMessageContaining("truncated");
        }
      }
    }
  }

  /**
   * A builder closed before it published (a compaction that failed: {@code
   * KeyValueFileWriter#abort}) leaves nothing in the cache, neither ended files nor the open one.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(ints = {1, 2, 3})
  void aBuilderClosedBeforeItPublishedLeavesNothing(int seed) throws Exception {
    Table t = table();
    KeyValueLayout layout = new KeyValueLayout(t.store().schema());
    LocalKeyCache keys = new LocalKeyCache(t.store(), layout);
    RowType type = layout.fileType();
    Random rnd = new Random(seed);
    try (LocalKeyCache.Builder builder = keys.builder()) {
      for (int file = 0, files = 1 + rnd.nextInt(3); file < files; file++) {
        for (int i = 0, n = 1 + rnd.nextInt(200); i < n; i++) {
          GenericRowData row = new GenericRowData(type.getFieldCount());
          for (int c = 0; c < row.getArity(); c++) {
            row.setField(c, value(type, c, rnd));
          }
          builder.add(row);
        }
        if (file < files - 1 || rnd.nextBoolean()) {
          builder.endFile(); // else the last file is still open
        }
      }
      assertThat(keys.directory().list()).as("files being built").isNotEmpty();
    }
    assertThat(keys.directory().list()).as("after close without publish").isEmpty();
  }

  /**
   * A build's temporary file that a dead process left (a closed builder deletes its own) is removed
   * by the next lookup the cache publishes once it is older than a day by the table's clock, and
   * only then: generated ages on both sides of the day, the boundary included. A younger one is a
   * build in progress (here or in another process) and stays. The same holds in the directory of
   * another table of the cache, one this host may never compact again, whose lookups stay.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(ints = {1, 2, 3, 4})
  void buildsADeadProcessLeftAreRemovedAfterADay(int seed) throws Exception {
    Instant now = Instant.parse("2026-12-06T00:00:00Z");
    Table t = table();
    LocalKeyCache keys =
        new LocalKeyCache(
            t.store().withClock(Clock.fixed(now, ZoneOffset.UTC)),
            new KeyValueLayout(t.store().schema()));
    Random rnd = new Random(seed);
    long day = LocalKeyCache.STALE_BUILD.toMillis();
    File other = new File(keys.directory().getParentFile(), "another-table");
    List<String> stale = new ArrayList<>();
    List<String> young = new ArrayList<>();
    List<String> otherYoung = new ArrayList<>(List.of("x.parquet.s0.keys"));
    for (File d : List.of(keys.directory(), other)) {
      Files.createDirectories(d.toPath());
      for (int i = 0; i < 12; i++) {
        long age =
            switch (i) {
              case 0 -> day; // exactly a day: not yet
              case 1 -> day + 1;
              default -> (long) (rnd.nextDouble() * 2 * day);
            };
        File f = new File(d, "build-" + seed + "-" + i + ".keys.tmp");
        Files.write(f.toPath(), new byte[1 + rnd.nextInt(100)]);
        assertThat(f.setLastModified(now.toEpochMilli() - age)).isTrue();
        (age > day ? stale : d.equals(other) ? otherYoung : young).add(f.getName());
      }
    }
    File otherLookup = new File(other, "x.parquet.s0.keys");
    Files.write(otherLookup.toPath(), new byte[10]);
    assertThat(otherLookup.setLastModified(now.toEpochMilli() - 2 * day)).isTrue();
    publishOneRow(keys, "a.parquet");

    assertThat(keys.directory().list())
        .containsExactlyInAnyOrderElementsOf(
            concat(young, List.of("a.parquet.s" + t.store().schema().id() + ".keys")));
    assertThat(other.list()).containsExactlyInAnyOrderElementsOf(otherYoung);
    assertThat(stale).as("generated on both sides").isNotEmpty();
  }

  /**
   * A process looks in the other tables' directories at most once per {@link
   * LocalKeyCache#SWEEP_INTERVAL} by the table's clock: a dead build that appears there after a
   * look stays through publishes within the interval, and goes at the first publish after it.
   */
  @Test
  void theOtherTablesAreLookedAtOnceAnHour() throws Exception {
    Instant now = Instant.parse("2026-12-06T00:00:00Z");
    Table t = table();
    KeyValueLayout layout = new KeyValueLayout(t.store().schema());
    LocalKeyCache keys =
        new LocalKeyCache(t.store().withClock(Clock.fixed(now, ZoneOffset.UTC)), layout);
    publishOneRow(keys, "a.parquet"); // the first look
    File other = new File(keys.directory().getParentFile(), "another-table");
    Files.createDirectories(other.toPath());
    File dead = new File(other, "build-dead.keys.tmp");
    Files.write(dead.toPath(), new byte[10]);
    assertThat(dead.setLastModified(now.toEpochMilli() - 2 * LocalKeyCache.STALE_BUILD.toMillis()))
        .isTrue();

    Instant later = now.plus(LocalKeyCache.SWEEP_INTERVAL).minusMillis(1);
    publishOneRow(
        new LocalKeyCache(t.store().withClock(Clock.fixed(later, ZoneOffset.UTC)), layout),
        "b.parquet");
    assertThat(dead).as("within the hour").exists();
    Instant hourLater = now.plus(LocalKeyCache.SWEEP_INTERVAL);
    publishOneRow(
        new LocalKeyCache(t.store().withClock(Clock.fixed(hourLater, ZoneOffset.UTC)), layout),
        "c.parquet");
    assertThat(dead).as("an hour after the last look").doesNotExist();
  }

  /**
   * {@code local-cache.max-size} bounds the cache's disk with the lookups being built: a build in
   * progress counts, so publishing a lookup removes the least recently used published one sooner.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(ints = {1, 2, 3})
  void buildsInProgressCountAgainstTheLimit(int seed) throws Exception {
    Instant now = Instant.parse("2026-12-06T00:00:00Z");
    Table t = table("local-cache.max-size", "4 kb");
    LocalKeyCache keys =
        new LocalKeyCache(
            t.store().withClock(Clock.fixed(now, ZoneOffset.UTC)),
            new KeyValueLayout(t.store().schema()));
    publishOneRow(keys, "old.parquet");
    File old = new File(keys.directory(), "old.parquet.s0.keys");
    assertThat(old.setLastModified(now.toEpochMilli() - 60_000)).isTrue();
    publishOneRow(keys, "a.parquet");
    assertThat(old).as("both far under the limit").exists();

    // another process's build in progress: with the two lookups at most the limit, over it with
    // the next one
    File a = new File(keys.directory(), "a.parquet.s0.keys");
    File building = new File(keys.directory(), "build-other.keys.tmp");
    int room = (int) (4096 - old.length() - a.length());
    Files.write(building.toPath(), new byte[room - new Random(seed).nextInt(8)]);
    publishOneRow(keys, "b.parquet");

    assertThat(old).as("least recently used, evicted for the build's bytes").doesNotExist();
    assertThat(a).exists();
    assertThat(new File(keys.directory(), "b.parquet.s0.keys")).exists();
    assertThat(building).as("a build in progress is never removed for room").exists();
  }

  private static void publishOneRow(LocalKeyCache keys, String dataFile) throws Exception {
    try (LocalKeyCache.Builder builder = keys.builder()) {
      builder.add(GenericRowData.of(1L, StringData.fromString("v"), 1L, (byte) 0));
      builder.endFile();
      builder.publish(List.of(dataFile));
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private Table table() {
    return table("local-cache.max-size", "1 gb");
  }

  private Table table(String key, String value) {
    return TestTables.create(
        TestTables.catalog(dir),
        "t",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id")
            .option("bucket", "1")
            .option("deletion-vectors.enabled", "true")
            .option("local-cache.dir", cache.toString())
            .option(key, value)
            .build());
  }

  /** A field value: mostly short strings, a few several times the 64 KiB buffers long. */
  private static Object value(RowType type, int pos, Random rnd) {
    switch (type.getTypeAt(pos).getTypeRoot()) {
      case BIGINT:
        return rnd.nextLong();
      case INTEGER:
        return rnd.nextInt();
      case TINYINT:
        return (byte) rnd.nextInt(4);
      case SMALLINT:
        return (short) rnd.nextInt();
      case BOOLEAN:
        return rnd.nextBoolean();
      case VARCHAR:
        if (rnd.nextInt(10) == 0) {
          return null;
        }
        int length = rnd.nextInt(60) == 0 ? 70_000 + rnd.nextInt(200_000) : rnd.nextInt(40);
        char[] chars = new char[length];
        Arrays.fill(chars, (char) ('a' + rnd.nextInt(26)));
        return StringData.fromString(new String(chars));
      default:
        throw new IllegalArgumentException("No generator for " + type.getTypeAt(pos));
    }
  }

  /** The format, written as {@link DataOutputStream} writes it. */
  private static byte[] format(List<byte[]> rows) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      for (int i = 0; i < rows.size(); i++) {
        out.writeInt(i);
        out.writeInt(rows.get(i).length);
        out.write(rows.get(i));
      }
    }
    return bytes.toByteArray();
  }
}
