package io.sediment.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.data.BinaryRows;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.mergetree.DeletionVectors;
import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * A commit's deletion vectors against the latest ones ({@link DeletionVectorChanges}), for
 * generated vectors: a vector built on the current one replaces it; one that was not (its base is
 * unknown, or had another vector, or a second message of the commit marks the same file) is merged
 * with it, and the result holds every deletion of both, in a new file only when neither holds them
 * all. The vectors of removed files are dropped. The bucket rules make most of the merges
 * unreachable through a commit of a primary-key table ({@link CommitModelTest}); they stay the
 * safety net of the rule "a deletion once made is never lost", and are checked here directly.
 */
class DeletionVectorChangesTest {

  @TempDir Path dir;

  @Test
  void everyDeletionOfBothVectorsIsKept() throws Exception {
    FileStore store =
        TestTables.create(
                TestTables.catalog(dir),
                "t",
                Schema.newBuilder()
                    .column("id", DataTypes.BIGINT().notNull())
                    .primaryKey("id")
                    .option("bucket", "1")
                    .option("deletion-vectors.enabled", "true")
                    .build())
            .store();
    DeletionVectorChanges changes = new DeletionVectorChanges(store);
    SnapshotVectors vectors =
        new SnapshotVectors(
            store.snapshotManager(), new IndexManifest(store.fileIO(), store.paths()));
    Random random = new Random(42);
    for (int run = 0; run < 300; run++) {
      String where = "run " + run;
      // the latest vectors: files f0..f3, each with a vector or not
      Map<String, RoaringBitmap> current = new LinkedHashMap<>();
      for (int f = 0; f < 4; f++) {
        if (random.nextBoolean()) {
          current.put("f" + f, bits(random));
        }
      }
      Map<String, IndexManifest.Entry> latest = new LinkedHashMap<>();
      Map<DeletionFile, RoaringBitmap> positions = new HashMap<>();
      for (DeletionFile d : DeletionVectors.write(store, current)) {
        latest.put(target(d.dataFile()), IndexManifest.Entry.of(BinaryRows.EMPTY, 0, d));
        positions.put(d, current.get(d.dataFile()));
      }
      Set<String> removed = random.nextInt(3) == 0 ? Set.of(target("f0")) : Set.of();
      // one or two messages: base unknown, or 0 (no vectors then), each marking some files
      List<CommitMessage> messages = new ArrayList<>();
      for (int m = 1 + random.nextInt(2); m > 0; m--) {
        Map<String, RoaringBitmap> marks = new LinkedHashMap<>();
        for (int f = 0; f < 4; f++) {
          if (random.nextInt(3) == 0) {
            marks.put("f" + f, bits(random));
          }
        }
        List<DeletionFile> files = DeletionVectors.write(store, marks);
        files.forEach(d -> positions.put(d, marks.get(d.dataFile())));
        OptionalLong base = random.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(0);
        messages.add(
            new CommitMessage(
                BinaryRows.EMPTY, 0, 1, List.of(), List.of(), List.of(), files, base));
      }

      // the model: the first vector of a file replaces the current one when built on it (the
      // file has none, since base 0 had none); any other one is merged
      Map<String, List<DeletionFile>> toMerge = new LinkedHashMap<>();
      Map<String, DeletionFile> expected = new LinkedHashMap<>();
      latest.forEach(
          (t, e) -> {
            if (!removed.contains(t)) {
              expected.put(t, e.deletionFile());
            }
          });
      boolean changed = !removed.isEmpty() && latest.containsKey(target("f0"));
      for (CommitMessage m : messages) {
        for (DeletionFile d : m.deletionFiles()) {
          String t = target(d.dataFile());
          if (removed.contains(t)) {
            continue;
          }
          changed = true;
          DeletionFile now = expected.get(t);
          if (now == null && !toMerge.containsKey(t)) {
            expected.put(t, d);
          } else {
            toMerge.computeIfAbsent(t, k -> new ArrayList<>(List.of(now))).add(d);
          }
        }
      }
      DeletionVectorChanges.Result result = changes.apply(latest, removed, messages, vectors);

      assertThat(result.changed()).as(where + ": changed").isEqualTo(changed);
      Map<String, DeletionFile> entries = new LinkedHashMap<>();
      result.entries().forEach(e -> entries.put(e.target(), e.deletionFile()));
      boolean newFile = false;
      for (Map.Entry<String, List<DeletionFile>> m : toMerge.entrySet()) {
        RoaringBitmap union = new RoaringBitmap();
        DeletionFile widest = null;
        for (DeletionFile d : m.getValue()) {
          union.or(positions.get(d));
          if (widest == null
              || positions.get(d).getLongCardinality()
                  > positions.get(widest).getLongCardinality()) {
            widest = d;
          }
        }
        DeletionFile got = entries.get(m.getKey());
        assertThat(DeletionVectors.read(store, got))
            .as(where + ": the merged vector of " + m.getKey())
            .isEqualTo(union);
        if (union.getLongCardinality() == positions.get(widest).getLongCardinality()) {
          assertThat(got).as(where + ": the vector holding both").isEqualTo(widest);
        } else {
          assertThat(got.dvFile())
              .as(where + ": a union is a new file")
              .isEqualTo(result.mergedFile());
          newFile = true;
        }
        expected.put(m.getKey(), got);
      }
      assertThat(entries).as(where + ": the entries").isEqualTo(expected);
      if (!newFile) {
        assertThat(result.mergedFile()).as(where + ": no union written").isNull();
      }
    }
  }

  private static String target(String dataFile) {
    return IndexManifest.target(BinaryRows.EMPTY, 0, dataFile);
  }

  private static RoaringBitmap bits(Random random) {
    RoaringBitmap b = new RoaringBitmap();
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      b.add(random.nextInt(6));
    }
    return b;
  }
}
