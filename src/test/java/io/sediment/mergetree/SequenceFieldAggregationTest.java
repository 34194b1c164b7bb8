package io.sediment.mergetree;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An aggregation table with a {@code sequence.field} merges a key's versions in the order of that
 * field, however the versions were split over commits and compactions: a merged row keeps the
 * field's largest value. A retraction merged alone (a writer's flush of one commit) took the
 * field's default function, which made it null, so the merged retraction sorted before every
 * version and the value it retracted came back.
 */
class SequenceFieldAggregationTest {

  @TempDir Path dir;

  /** One change: kind (true: a retraction), its sequence value, a sum term and a last_value. */
  private record Version(boolean retract, int ts, long total, String v) {}

  @Test
  void versionsMergeInSequenceFieldOrderHoweverTheyAreSplit() throws Exception {
    for (int seed = 1; seed <= 12; seed++) {
      Random rnd = new Random(seed);
      Table t =
          TestTables.create(
              TestTables.catalog(dir.resolve("s" + seed)),
              "t",
              Schema.newBuilder()
                  .column("k", DataTypes.BIGINT().notNull())
                  .column("ts", DataTypes.INT())
                  .column("total", DataTypes.BIGINT())
                  .column("v", DataTypes.STRING())
                  .primaryKey("k")
                  .option("bucket", "1")
                  .option("merge-engine", "aggregation")
                  .option("sequence.field", "ts")
                  .option("fields.total.aggregate-function", "sum")
                  .option("fields.v.aggregate-function", "last_value")
                  .option("num-sorted-run.compaction-trigger", String.valueOf(2 + rnd.nextInt(4)))
                  .build());
      Map<Long, List<Version>> byKey = new TreeMap<>();
      WriteBuilder wb = t.newStreamWriteBuilder();
      TableCommit commit = wb.newCommit();
      try (TableWrite write = wb.newWrite()) {
        int commits = 2 + rnd.nextInt(6);
        for (int c = 1; c <= commits; c++) {
          for (int n = 1 + rnd.nextInt(3); n > 0; n--) {
            long k = rnd.nextInt(3);
            List<Version> versions = byKey.computeIfAbsent(k, x -> new ArrayList<>());
            // distinct sequence values per key, arriving in any order
            int ts;
            do {
              ts = rnd.nextInt(40);
            } while (hasTs(versions, ts));
            Version ver =
                new Version(
                    !versions.isEmpty() && rnd.nextInt(3) == 0,
                    ts,
                    1 + rnd.nextInt(9),
                    "v" + rnd.nextInt(100));
            versions.add(ver);
            GenericRowData row =
                GenericRowData.of(k, ts, ver.total(), StringData.fromString(ver.v()));
            row.setRowKind(ver.retract() ? RowKind.DELETE : RowKind.INSERT);
            write.write(row);
          }
          commit.commit(c, write.prepareCommit());
        }
      }
      List<String> expected = expected(byKey);
      assertThat(read(t)).as("seed %d, %s", seed, byKey).containsExactlyElementsOf(expected);
      t.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
      assertThat(read(t))
          .as("seed %d after a full compaction, %s", seed, byKey)
          .containsExactlyElementsOf(expected);
    }
  }

  private static boolean hasTs(List<Version> versions, int ts) {
    return versions.stream().anyMatch(x -> x.ts() == ts);
  }

  /**
   * The model: versions applied in ts order; sum adds or subtracts, last_value (null on retract).
   */
  private static List<String> expected(Map<Long, List<Version>> byKey) {
    List<String> out = new ArrayList<>();
    byKey.forEach(
        (k, versions) -> {
          List<Version> sorted = new ArrayList<>(versions);
          sorted.sort(Comparator.comparingInt(Version::ts));
          long total = 0;
          String v = null;
          for (Version x : sorted) {
            total += x.retract() ? -x.total() : x.total();
            v = x.retract() ? null : x.v();
          }
          out.add("(" + k + "," + sorted.get(sorted.size() - 1).ts() + "," + total + "," + v + ")");
        });
    return out;
  }

  private static List<String> read(Table t) {
    List<String> rows = TestTables.toStrings(t.rowType(), TestTables.readAll(t));
    rows.sort(null);
    return rows;
  }
}
