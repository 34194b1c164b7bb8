package io.sediment.mergetree;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactCommit;
import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactTask;
import io.sediment.compact.TableKind;
import io.sediment.io.OutputObserver;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writer that compacts its own bucket (deletion vectors, local cache on) and a dedicated
 * compactor whose plan, rewrite and commit are separate steps, interleaved by a seeded scheduler.
 * After every step no key is read twice and every row read is a version that was written; after a
 * final full compaction the table reads exactly the model. The seed is in the failure message.
 */
class InterleavedDeletionVectorTest {

  @TempDir Path dir;
  @TempDir Path cache;

  /** The compactor's progress: nothing, planned tasks, or rewritten messages. */
  private List<CompactTask> planned;

  private List<CommitMessage> rewritten;

  private int landed;
  private int conflicts;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4})
  void writerAndCompactorInterleavedReadEveryKeyOnce(long seed) throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            PrimaryKeyTableTest.schema()
                .option("deletion-vectors.enabled", "true")
                .option("local-cache.enabled", "true")
                .option("local-cache.dir", cache.toString())
                .option("num-sorted-run.compaction-trigger", "8")
                .build());
    Random rnd = new Random(seed);
    TreeMap<Long, String> model = new TreeMap<>();
    Map<Long, Set<String>> written = new HashMap<>();
    for (int step = 0; step < 40; step++) {
      String at = "seed " + seed + ", step " + step;
      if (rnd.nextInt(5) < 3) {
        write(t, rnd, model, written);
      } else {
        advanceCompactor(t, rnd);
      }
      List<String> rows = PrimaryKeyTableTest.read(t);
      Set<Long> keys = new HashSet<>();
      for (RowData r : TestTables.readAll(t)) {
        assertThat(keys.add(r.getLong(0)))
            .as("%s: key %s read twice: %s", at, r.getLong(0), rows)
            .isTrue();
      }
      for (String r : rows) {
        long k = Long.parseLong(r.substring(1, r.indexOf(',')));
        assertThat(written.get(k))
            .as("%s: a version of key %s that was written", at, k)
            .contains(r);
      }
    }
    t.newCompactBuilder()
        .withOptions(Map.of("compaction.full", "true", "local-cache.dir", cache.toString()))
        .execute();
    assertThat(PrimaryKeyTableTest.read(t))
        .as(
            "seed %s: after a final full compaction (%s compactions, %s conflicts)",
            seed, landed, conflicts)
        .containsExactlyInAnyOrderElementsOf(new ArrayList<>(model.values()));
  }

  private static void write(
      Table t, Random rnd, TreeMap<Long, String> model, Map<Long, Set<String>> written)
      throws Exception {
    WriteBuilder wb = t.newBatchWriteBuilder();
    try (TableWrite w = wb.newWrite()) {
      int ops = 1 + rnd.nextInt(6);
      for (int i = 0; i < ops; i++) {
        long k = rnd.nextInt(12);
        if (rnd.nextInt(5) == 0 && model.containsKey(k)) {
          GenericRowData r = row(k, null, null);
          r.setRowKind(RowKind.DELETE);
          w.write(r);
          model.remove(k);
        } else {
          int v = rnd.nextInt(1000);
          String rendered = "(" + k + ",v" + v + "," + v + ")";
          w.write(row(k, "v" + v, v));
          model.put(k, rendered);
          written.computeIfAbsent(k, x -> new HashSet<>()).add(rendered);
        }
      }
      TableCommit c = wb.newCommit();
      c.commit(w.prepareCommit());
    }
  }

  /** Plans, rewrites or commits: one step of the compactor. */
  private void advanceCompactor(Table t, Random rnd) throws Exception {
    Map<String, String> options =
        Map.of(
            "compaction.full", String.valueOf(rnd.nextBoolean()),
            "local-cache.dir", cache.toString());
    CompactBuilder b = t.newCompactBuilder().withOptions(options);
    if (planned == null && rewritten == null) {
      planned = b.plan();
      if (planned.isEmpty()) {
        planned = null;
      }
      return;
    }
    if (rewritten == null) {
      CompactRewriter rewriter =
          TableKind.of(b.effectiveStore()).rewriter(b.effectiveStore(), OutputObserver.NONE);
      rewritten = new ArrayList<>();
      for (CompactTask task : planned) {
        rewritten.add(rewriter.rewrite(task, () -> false).message());
      }
      planned = null;
      return;
    }
    List<CommitMessage> messages = rewritten;
    rewritten = null;
    try {
      new CompactCommit(b.effectiveStore(), "compactor")
          .commit(messages, TableCommit.BATCH_IDENTIFIER, false);
      landed++;
    } catch (CommitConflictException e) {
      conflicts++; // aborted: its outputs are deleted, a later plan redoes it
    }
  }
}
