package io.sediment.maintenance;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.ConsumerManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An operator's changes to the consumers of streaming reads: reset, delete, clear. */
class ConsumersTest {

  @TempDir Path dir;

  /** db.t keeping 2 snapshots after each commit (expiry runs after every commit). */
  private Table table(String name) {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    return TestTables.create(
        catalog,
        name,
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT())
            .option("snapshot.num-retained.min", "1")
            .option("snapshot.num-retained.max", "2")
            .build());
  }

  private static ConsumerManager consumers(Table t) {
    return new ConsumerManager(t.store().fileIO(), t.store().paths());
  }

  private static void commits(Table t, long from, long to) throws Exception {
    for (long i = from; i < to; i++) {
      TestTables.writeBatch(t, List.of(row(i)));
    }
  }

  @Test
  void aResetConsumerIsWhereReadsResumeAndWhatExpiryKeeps() throws Exception {
    Table t = table("t");
    commits(t, 0, 5);
    assertThat(t.snapshotManager().listIds()).containsExactly(4L, 5L);
    Consumers c = new Consumers(t);

    Consumers.Change created = c.reset("reader", 4);
    assertThat(created.action()).isEqualTo("created");
    assertThat(created.before()).isEmpty();
    assertThat(consumers(t).nextSnapshot("reader")).hasValue(4);
    // the one after the latest: only later commits
    Consumers.Change later = c.reset("reader", 6);
    assertThat(later.action()).isEqualTo("reset");
    assertThat(later.before()).hasValue(4);
    assertThat(later.after()).hasValue(6);

    c.reset("reader", 5);
    commits(t, 5, 9);
    assertThat(t.snapshotManager().listIds()).containsExactly(5L, 6L, 7L, 8L, 9L);

    Consumers.Change deleted = c.delete("reader");
    assertThat(deleted.action()).isEqualTo("deleted");
    assertThat(deleted.before()).hasValue(5);
    assertThat(consumers(t).all()).isEmpty();
    commits(t, 9, 10);
    assertThat(t.snapshotManager().listIds()).containsExactly(9L, 10L);
  }

  @Test
  void aSnapshotNoReadCanResumeAtIsRefusedAndChangesNothing() throws Exception {
    Table t = table("t");
    commits(t, 0, 5); // snapshots 4 and 5 are left
    Consumers c = new Consumers(t);
    c.reset("reader", 5);
    for (long bad : new long[] {Long.MIN_VALUE, -1, 0, 1, 3, 7, 100, Long.MAX_VALUE}) {
      assertThatThrownBy(() -> c.reset("reader", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "Snapshot "
                  + bad
                  + " is not one a read can resume at; db.t has snapshots 4 to 5: give one of"
                  + " them, or 6 to read only later commits");
      assertThatThrownBy(() -> c.reset("other", bad)).isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(consumers(t).all()).containsOnlyKeys("reader");
    assertThat(consumers(t).nextSnapshot("reader")).hasValue(5);

    Table empty = table("empty");
    assertThatThrownBy(() -> new Consumers(empty).reset("reader", 2))
        .hasMessage(
            "Snapshot 2 is not one a read can resume at; db.empty has no snapshot yet: give 1 (its"
                + " first commit)");
    new Consumers(empty).reset("reader", 1);
    assertThat(consumers(empty).nextSnapshot("reader")).hasValue(1);
  }

  @Test
  void idsThatCannotNameAConsumerAndUnknownConsumersAreRefused() throws Exception {
    Table t = table("t");
    commits(t, 0, 1);
    Consumers c = new Consumers(t);
    for (String bad : new String[] {"../x", "a/b", "", "a b", null}) {
      assertThatThrownBy(() -> c.reset(bad, 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid consumer-id");
      assertThatThrownBy(() -> c.delete(bad)).hasMessageContaining("Invalid consumer-id");
    }
    assertThatThrownBy(() -> c.delete("reader"))
        .hasMessage("db.t has no consumer 'reader'; it has none");
    c.reset("a", 1);
    c.reset("b", 1);
    assertThatThrownBy(() -> c.delete("reader"))
        .hasMessage("db.t has no consumer 'reader'; its consumers are [a, b]");
    assertThat(consumers(t).all()).containsOnlyKeys("a", "b");
  }

  /**
   * Generated cases: sets of consumer ids and patterns (left out, blank, prefixes, alternatives,
   * partial matches that must not count); what is cleared is exactly the ids that match the
   * including pattern whole and not the excluding one, the rest stay as they were.
   */
  @Test
  void clearDeletesExactlyTheIdsTheIncludingPatternMatchesAndTheExcludingOneDoesNot()
      throws Exception {
    Table t = table("t");
    commits(t, 0, 3);
    Consumers c = new Consumers(t);
    String[] ids = {"etl", "etl-1", "etl-2", "etl.x", "app_1", "app-etl", "x", "ETL"};
    String[] patterns = {
      null, "", "  ", "etl.*", "etl", "etl-\\d", "app.*|x", ".*etl.*", "et", "E.*"
    };
    Random rnd = new Random(7);
    for (int round = 0; round < 60; round++) {
      Set<String> present = new TreeSet<>();
      for (String id : ids) {
        if (rnd.nextBoolean()) {
          present.add(id);
          consumers(t).record(id, 2 + rnd.nextInt(2));
        }
      }
      Map<String, ConsumerManager.Consumer> before = consumers(t).all();
      String in = patterns[rnd.nextInt(patterns.length)];
      String out = patterns[rnd.nextInt(patterns.length)];
      Set<String> expected = new LinkedHashSet<>();
      for (String id : present) {
        boolean included = in == null || in.isBlank() || id.matches(in);
        boolean excluded = out != null && !out.isBlank() && id.matches(out);
        if (included && !excluded) {
          expected.add(id);
        }
      }
      List<Consumers.Change> cleared = c.clear(Consumers.idPattern(in), Consumers.idPattern(out));
      List<String> clearedIds = new ArrayList<>();
      for (Consumers.Change ch : cleared) {
        clearedIds.add(ch.consumerId());
        assertThat(ch.before()).hasValue(before.get(ch.consumerId()).nextSnapshot());
        assertThat(ch.after()).isEqualTo(OptionalLong.empty());
      }
      String what = "including " + in + ", excluding " + out + ", of " + present;
      assertThat(clearedIds).as(what).containsExactlyInAnyOrderElementsOf(expected);
      Set<String> left = new TreeSet<>(present);
      left.removeAll(expected);
      assertThat(consumers(t).all().keySet()).as(what).isEqualTo(left);
      for (String id : left) {
        assertThat(consumers(t).nextSnapshot(id)).hasValue(before.get(id).nextSnapshot());
      }
      c.clear(null, null);
    }
  }

  /**
   * A reset whose snapshot an expiry retires meanwhile (one that read the consumer before the
   * write) fails and puts the consumer back as it was, a position inside a read's start too.
   */
  @Test
  void aResetThatLosesItsSnapshotPutsTheConsumerBackAsItWas() throws Exception {
    Table t =
        TestTables.create(
            TestTables.faultyCatalog(dir.resolve("faulty")),
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .option("snapshot.num-retained.min", "1")
                .option("snapshot.num-retained.max", "1000")
                .build());
    commits(t, 0, 6);
    consumers(t).record("etl", new ConsumerManager.Position(5, true));
    java.util.concurrent.atomic.AtomicBoolean expired =
        new java.util.concurrent.atomic.AtomicBoolean();
    io.sediment.testutil.FaultyFileSystem.onCreate(
        p -> {
          if (p.contains("consumer-etl") && expired.compareAndSet(false, true)) {
            new ExpireSnapshots(t).retainMax(2).execute(); // sees the consumer at 5
          }
        });
    try {
      assertThatThrownBy(() -> new Consumers(t).reset("etl", 2))
          .hasMessageContaining("expired while consumer 'etl' was reset to it")
          .hasMessageContaining("the consumer is as it was");
    } finally {
      io.sediment.testutil.FaultyFileSystem.onCreate(p -> {});
    }
    assertThat(expired).isTrue();
    assertThat(consumers(t).position("etl")).hasValue(new ConsumerManager.Position(5, true));
  }

  /** A consumer file that does not parse does not stop an operator from deleting consumers. */
  @Test
  void aConsumerWhoseFileDoesNotParseCanBeDeletedAndCleared() throws Exception {
    Table t = table("t");
    commits(t, 0, 2);
    Path consumerDir = dir.resolve("db.db/t/consumer");
    java.nio.file.Files.createDirectories(consumerDir);
    java.nio.file.Files.writeString(consumerDir.resolve("consumer-bad"), "{not json");
    Consumers c = new Consumers(t);
    c.reset("good", 2);
    assertThat(c.delete("bad").before()).isEmpty();
    assertThat(consumers(t).all()).containsOnlyKeys("good");

    java.nio.file.Files.writeString(consumerDir.resolve("consumer-bad"), "{not json");
    assertThat(c.clear(null, null))
        .extracting(Consumers.Change::consumerId)
        .containsExactly("bad", "good");
    assertThat(consumerDir).isEmptyDirectory();

    java.nio.file.Files.writeString(consumerDir.resolve("consumer-bad"), "{not json");
    c.reset("bad", 1);
    assertThat(consumers(t).nextSnapshot("bad")).hasValue(1);
  }

  @Test
  void aPatternThatIsNotARegularExpressionIsRefused() {
    assertThat(Consumers.idPattern(null)).isNull();
    assertThat(Consumers.idPattern(" ")).isNull();
    assertThat(Consumers.idPattern("a.*")).extracting(Pattern::pattern).isEqualTo("a.*");
    assertThatThrownBy(() -> Consumers.idPattern("etl["))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("'etl[' is not a regular expression: Unclosed character class");
  }
}
