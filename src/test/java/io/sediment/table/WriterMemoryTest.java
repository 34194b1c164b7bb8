package io.sediment.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
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
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A streaming primary-key writer's memory must be bounded by what it writes now, not by every
 * bucket it ever wrote: {@code write-buffer-size} bounds the buffers of all its buckets together
 * (the largest is written when it is full, as Paimon's shared write buffer), and a bucket left idle
 * is released, its next sequence number kept, so that rows written into it later are still newer.
 * Generated histories of windows over many partitions, some committed a window late, check the
 * bound after every row, the release, the sequence state, and the rows read.
 */
class WriterMemoryTest {

  private static final int PARTITIONS = 6;
  private static final long BUFFER = 16 * 1024;

  @TempDir Path dir;

  private static Schema schema(String setUp) {
    Schema.Builder b =
        TestTables.idIntPartitionValueSchema()
            .primaryKey("id", "p")
            .option("bucket", "3")
            .option("write-buffer-size", BUFFER + " b")
            .option("num-sorted-run.compaction-trigger", "3")
            // never waits for a compaction job here
            .option("num-sorted-run.stop-trigger", "1000");
    if (setUp.contains("write-only")) {
      b.option("write-only", "true");
    }
    if (setUp.contains("wait")) {
      b.option("write-only.stop-trigger-wait", "1 min");
    }
    if (setUp.contains("dv")) {
      b.option("deletion-vectors.enabled", "true");
    }
    if (setUp.contains("lookup")) {
      b.option("changelog-producer", "lookup");
    }
    if (setUp.contains("partial-update")) {
      b.option("merge-engine", "partial-update");
    }
    return b.build();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {"compacting", "write-only", "write-only wait", "dv", "lookup", "partial-update"})
  void memoryFollowsTheBucketsWrittenNowAndRowsStayExact(String setUp) throws Exception {
    boolean deletes = !setUp.contains("partial-update");
    boolean noViews = setUp.equals("write-only");
    for (int seed = 0; seed < 4; seed++) {
      Random random = new Random(seed * 31L + setUp.hashCode());
      FileSystemCatalog catalog = TestTables.catalog(dir.resolve(setUp.replace(' ', '-') + seed));
      Table table = TestTables.create(catalog, "t", schema(setUp));
      PrimaryKeyTableWrite write = new PrimaryKeyTableWrite(table.store(), OutputObserver.NONE);
      TableCommit commit = table.newStreamWriteBuilder().withCommitUser("w").newCommit();
      Map<String, String> model = new TreeMap<>(); // "id,p" -> v
      Map<BinaryRowData, Map<Integer, Long>> sequences = Map.of();
      RowBuckets buckets = new RowBuckets(table.store().schema());
      List<CommitMessage> held = null;
      long window = 0;
      for (int round = 0; round < 12; round++) {
        window++;
        // one to three of the partitions, some rounds many rows (several flushes)
        Set<Integer> partitions = new HashSet<>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
          partitions.add(random.nextInt(PARTITIONS));
        }
        List<Integer> chosen = new ArrayList<>(partitions);
        Set<String> touched = new HashSet<>();
        for (int i = 0, n = random.nextInt(4) == 0 ? 1500 : 1 + random.nextInt(200); i < n; i++) {
          long id = random.nextInt(150);
          int p = chosen.get(random.nextInt(chosen.size()));
          boolean delete = deletes && random.nextInt(8) == 0;
          String v = delete ? null : "w" + window + "-" + random.nextInt(1000);
          GenericRowData row =
              GenericRowData.of(id, p, v == null ? null : StringData.fromString(v));
          if (delete) {
            row.setRowKind(RowKind.DELETE);
            model.remove(id + "," + p);
          } else {
            model.put(id + "," + p, v);
          }
          touched.add(p + "/" + buckets.bucket(row));
          write.write(row);
          assertThat(write.bufferedBytes())
              .as("%s seed %s: bytes buffered over all buckets", setUp, seed)
              .isLessThan(BUFFER);
        }
        List<CommitMessage> messages = write.prepareCommit();
        if (noViews) {
          // nothing keeps an idle bucket of a writer that follows no snapshot
          assertThat(write.openBuckets()).isEqualTo(touched.size());
        }
        if (held != null) {
          commit.commit(window - 1, held);
          held = null;
        }
        if (random.nextInt(3) == 0) {
          held = messages; // committed after the next window is prepared: in flight meanwhile
        } else {
          commit.commit(window, messages);
        }
        sequences = checkSequencesKept(sequences, write.nextSequences(), setUp, seed);
      }
      if (held != null) {
        commit.commit(window, held);
      }
      // a few empty windows: every bucket's windows are seen committed, its compactions settle
      for (int i = 0; i < 4; i++) {
        window++;
        commit.commit(window, write.prepareCommit());
      }
      assertThat(write.openBuckets()).as("%s seed %s: buckets held idle", setUp, seed).isZero();
      sequences = checkSequencesKept(sequences, write.nextSequences(), setUp, seed);

      // rows written into released buckets must still be the newest versions
      for (int i = 0; i < 100; i++) {
        long id = random.nextInt(150);
        int p = random.nextInt(PARTITIONS);
        String v = "last-" + i;
        write.write(GenericRowData.of(id, p, StringData.fromString(v)));
        model.put(id + "," + p, v);
      }
      commit.commit(window + 1, write.prepareCommit());
      write.close();

      Map<String, String> read = new TreeMap<>();
      for (RowData r : TestTables.readAll(table)) {
        read.put(r.getLong(0) + "," + r.getInt(1), r.getString(2).toString());
      }
      assertThat(read).as("%s seed %s", setUp, seed).isEqualTo(model);
    }
  }

  /**
   * An append writer with fixed buckets releases the buckets it left idle for a commit too; the
   * files a bucket gets later, also while its last window is not committed yet, still number their
   * rows after the earlier ones.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(ints = {1, 2, 3})
  void anAppendWriterReleasesIdleBucketsAndKeepsTheirOrder(int seed) throws Exception {
    Table table =
        TestTables.create(
            TestTables.catalog(dir.resolve("append-" + seed)),
            "t",
            TestTables.idIntPartitionValueSchema()
                .option("bucket", "2")
                .option("bucket-key", "id")
                .build());
    Random random = new Random(seed);
    RowBuckets buckets = new RowBuckets(table.store().schema());
    TableCommit commit = table.newStreamWriteBuilder().withCommitUser("w").newCommit();
    // windows sent and not committed yet, oldest first: up to two windows late
    java.util.ArrayDeque<Map.Entry<Long, List<CommitMessage>>> sent = new java.util.ArrayDeque<>();
    try (TableWrite write = table.newStreamWriteBuilder().withCommitUser("w").newWrite()) {
      for (long window = 1; window <= 15; window++) {
        Set<String> touched = new HashSet<>();
        for (int i = 0, n = 1 + random.nextInt(20); i < n; i++) {
          GenericRowData row =
              GenericRowData.of(
                  (long) random.nextInt(50),
                  random.nextInt(PARTITIONS),
                  StringData.fromString("v"));
          touched.add(row.getInt(1) + "/" + buckets.bucket(row));
          write.write(row);
        }
        sent.add(Map.entry(window, write.prepareCommit()));
        assertThat(write.openBuckets()).isEqualTo(touched.size());
        while (!sent.isEmpty() && (sent.size() > 2 || random.nextBoolean())) {
          Map.Entry<Long, List<CommitMessage>> w = sent.poll();
          commit.commit(w.getKey(), w.getValue());
        }
      }
      for (Map.Entry<Long, List<CommitMessage>> w : sent) {
        commit.commit(w.getKey(), w.getValue());
      }
    }
    // per bucket, the files in commit order number their rows upwards, without overlap
    Map<String, Long> last = new HashMap<>();
    for (long id = 1; id <= table.latestSnapshot().orElseThrow().id(); id++) {
      Snapshot s = table.snapshotManager().snapshot(id);
      for (ManifestEntry e : table.store().newScan().readDelta(s)) {
        String bucket = e.partition().getInt(0) + "/" + e.bucket();
        Long before = last.get(bucket);
        assertThat(e.file().minSequenceNumber())
            .as("seed %s, bucket %s, snapshot %s", seed, bucket, id)
            .isGreaterThan(before == null ? -1 : before);
        last.put(bucket, e.file().maxSequenceNumber());
      }
    }
  }

  /**
   * A fixed-bucket append writer restored with an earlier attempt's sequence numbers (its window
   * not committed yet) numbers its rows above them, as a primary-key writer does: the earlier
   * window, committed later, stays first in the bucket's order.
   */
  @Test
  void aRestoredAppendWriterNumbersAboveTheEarlierAttemptsWindow() throws Exception {
    Table table =
        TestTables.create(
            TestTables.catalog(dir.resolve("restored")),
            "t",
            TestTables.idIntPartitionValueSchema()
                .option("bucket", "1")
                .option("bucket-key", "id")
                .build());
    List<CommitMessage> earlier;
    Map<BinaryRowData, Map<Integer, Long>> state;
    try (TableWrite attempt = table.newStreamWriteBuilder().withCommitUser("w").newWrite()) {
      for (long id = 0; id < 5; id++) {
        attempt.write(GenericRowData.of(id, 0, StringData.fromString("earlier")));
      }
      earlier = attempt.prepareCommit();
      state = attempt.nextSequences();
    }
    List<CommitMessage> later;
    try (TableWrite restored = table.newStreamWriteBuilder().withCommitUser("w").newWrite()) {
      restored.restoreSequences(state);
      restored.write(GenericRowData.of(9L, 0, StringData.fromString("later")));
      later = restored.prepareCommit();
    }
    TableCommit commit = table.newStreamWriteBuilder().withCommitUser("w").newCommit();
    commit.commit(1, earlier);
    commit.commit(2, later);
    assertThat(later.get(0).newFiles().get(0).minSequenceNumber())
        .isGreaterThan(earlier.get(0).newFiles().get(0).maxSequenceNumber());
  }

  /** The writer's sequence state keeps every bucket it wrote, each number never going down. */
  private static Map<BinaryRowData, Map<Integer, Long>> checkSequencesKept(
      Map<BinaryRowData, Map<Integer, Long>> before,
      Map<BinaryRowData, Map<Integer, Long>> now,
      String setUp,
      int seed) {
    before.forEach(
        (p, byBucket) ->
            byBucket.forEach(
                (b, next) ->
                    assertThat(now.getOrDefault(p, Map.of()).get(b))
                        .as("%s seed %s: next sequence of bucket %s", setUp, seed, b)
                        .isNotNull()
                        .isGreaterThanOrEqualTo(next)));
    Map<BinaryRowData, Map<Integer, Long>> copy = new HashMap<>();
    now.forEach((p, byBucket) -> copy.put(p, new HashMap<>(byBucket)));
    return copy;
  }
}
