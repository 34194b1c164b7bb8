package io.sediment.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.data.BinaryRows;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.mergetree.DeletionVectors;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.roaringbitmap.RoaringBitmap;

/**
 * Generated histories of commits through {@link FileStoreCommit}, each checked against a model of
 * the table's files: appends, compactions (of live and already replaced inputs, into levels whose
 * key ranges may overlap, from bases stale or unknown, with outputs deleted before the publish), a
 * primary-key writer's append-and-compaction, partition overwrites, truncation and repeated
 * identifiers. After every commit the latest snapshot's live files (names and levels), its kind,
 * identifier and record and file counts equal the model's; a commit the rules refuse (docs/spec.md,
 * "Commit conflicts") fails with the rule's error and changes nothing, and a writer's dropped
 * compaction leaves its appended files committed and its outputs deleted.
 *
 * <p>The files are empty files with fabricated metadata: a commit reads only metadata and checks
 * that the files it adds exist, so the key ranges, levels and row counts can be drawn freely.
 */
class CommitModelTest {

  private static final RowType KEY_TYPE = RowType.of(new IntType(false), new BigIntType(false));
  private static final RowType PARTITION_TYPE = RowType.of(new IntType());
  private static final int PARTITIONS = 2;

  @TempDir Path dir;

  static Stream<Long> seeds() {
    return LongStream.range(0, 40).boxed();
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void everyCommitMatchesTheModel(long seed) throws Exception {
    new History(seed, dir).run(28);
  }

  /** One generated history: the table, the committers and the model. */
  private static final class History {

    private final Random random;
    private final long seed;
    private final boolean primaryKey;
    private final boolean deletionVectors;
    private final int buckets;
    private final Table table;
    private final FileStore store;
    private final FileStoreCommit committer;

    /** The model: live files by name, removed files, and what each snapshot changed. */
    private final Map<String, Live> live = new LinkedHashMap<>();

    private final List<Live> removed = new ArrayList<>();
    private final List<SnapshotModel> snapshots = new ArrayList<>(); // snapshot id - 1

    /** The deletion vector of each live file that has one, and the positions of every vector. */
    private final Map<String, DeletionFile> vectors = new TreeMap<>();

    private final Map<DeletionFile, RoaringBitmap> positions = new HashMap<>();
    private long identifier;
    private long otherIdentifier;
    private final AtomicBoolean raceArmed = new AtomicBoolean();
    private int nextFile;
    private int step;

    History(long seed, Path dir) {
      this.seed = seed;
      this.random = new Random(seed);
      this.primaryKey = seed % 4 != 3;
      this.deletionVectors = seed % 4 == 1 || seed % 4 == 2;
      this.buckets = primaryKey ? 2 : 1;
      Schema.Builder schema =
          Schema.newBuilder()
              .column("p", DataTypes.INT().notNull())
              .column("id", DataTypes.BIGINT().notNull())
              .column("v", DataTypes.STRING())
              .partitionKeys("p")
              // small manifests merge often: every commit rewrites the base list
              .option("manifest.merge-min-count", String.valueOf(2 + random.nextInt(4)));
      if (primaryKey) {
        schema.primaryKey("p", "id").option("bucket", String.valueOf(buckets));
      }
      if (deletionVectors) {
        schema.option("deletion-vectors.enabled", "true");
      }
      FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
      this.table = TestTables.create(catalog, "t" + seed, schema.build());
      this.store = table.store();
      this.committer = new FileStoreCommit(store, "u");
    }

    void run(int steps) throws Exception {
      FaultyFileSystem.onOpen(
          path -> {
            if (path.contains("/snapshot/snapshot-") && raceArmed.compareAndSet(true, false)) {
              raceAppend();
            }
          });
      try {
        steps(steps);
      } finally {
        FaultyFileSystem.reset();
      }
    }

    /**
     * Now and then, the next commit loses the race for the snapshot id: another committer appends
     * while it runs (at its first read of a snapshot), so its first attempt is cleaned up and it
     * commits on top of the other one.
     */
    private void maybeRace() {
      raceArmed.set(random.nextInt(5) == 0);
    }

    private void raceAppend() throws IOException {
      try {
        Live l = newFile(random.nextInt(PARTITIONS), random.nextInt(buckets), 0);
        long id = ++otherIdentifier;
        assertThat(
                new FileStoreCommit(store, "other")
                    .commit(
                        List.of(
                            CommitMessage.append(
                                partition(l.p), l.bucket, buckets, List.of(l.file))),
                        id,
                        false))
            .as(where("the racing append"))
            .containsExactly(nextSnapshotId());
        record(CommitKind.APPEND, "other", id, List.of(), List.of(l));
      } catch (IOException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException(e);
      }
    }

    private void steps(int steps) throws Exception {
      for (step = 0; step < steps; step++) {
        int op = random.nextInt(20);
        if (op < 8 || live.isEmpty()) {
          append();
        } else if (op < 11) {
          compact();
        } else if (op < 15) {
          if (deletionVectors) {
            deleteRows();
          } else {
            compact();
          }
        } else if (op < 17 && primaryKey) {
          writerCommit();
        } else if (op < 18) {
          overwrite();
        } else if (op < 19) {
          repeat();
        } else if (random.nextInt(3) == 0) {
          truncate();
        } else {
          compact();
        }
      }
    }

    // ---- operations ----

    private void append() throws Exception {
      List<CommitMessage> messages = new ArrayList<>();
      List<Live> added = new ArrayList<>();
      for (int m = 1 + random.nextInt(3); m > 0; m--) {
        int p = random.nextInt(PARTITIONS);
        int bucket = random.nextInt(buckets);
        List<DataFileMeta> files = new ArrayList<>();
        for (int f = 1 + random.nextInt(2); f > 0; f--) {
          Live l = newFile(p, bucket, 0);
          files.add(l.file);
          added.add(l);
        }
        messages.add(CommitMessage.append(partition(p), bucket, buckets, files));
      }
      long id = ++identifier;
      maybeRace();
      List<Long> ids = committer.commit(messages, id, random.nextBoolean());
      raceArmed.set(false);
      assertThat(ids).as(where("append")).containsExactly(nextSnapshotId());
      apply(CommitKind.APPEND, id, List.of(), added);
      abortLanded(messages);
    }

    /** A compaction of one bucket, as a compaction job commits it: the outcome the rules say. */
    private void compact() throws Exception {
      Live any = pick(new ArrayList<>(live.values()));
      int p = any.p;
      int bucket = any.bucket;
      List<Live> before = someOf(bucketFiles(p, bucket));
      List<Live> replaced = new ArrayList<>();
      for (Live r : removed) {
        if (r.p == p && r.bucket == bucket) {
          replaced.add(r);
        }
      }
      if (!replaced.isEmpty() && random.nextInt(6) == 0) {
        before.add(pick(replaced)); // an input another commit replaced already
      }
      List<Live> after = outputs(p, bucket, before);
      OptionalLong base = drawBase();
      boolean deleteAnOutput = !after.isEmpty() && random.nextInt(10) == 0;
      if (deleteAnOutput) {
        Files.delete(path(pick(after)));
      }
      CommitMessage m =
          CommitMessage.compact(partition(p), bucket, buckets, files(before), files(after), base);
      // an output gone before the commit (an earlier attempt dropped it) is checked first
      String refusal =
          deleteAnOutput
              ? "outputs of its compaction are missing"
              : refusal(before, after, base, p, bucket);
      long id = ++identifier;
      maybeRace();
      Throwable error = catchThrowable(() -> committer.commit(List.of(m), id, false));
      raceArmed.set(false);
      if (refusal != null) {
        assertThat(error).as(where("compaction refused")).isNotNull();
        assertThat(error.getMessage()).as(where("compaction refused")).contains(refusal);
        assertThat(error).isInstanceOf(CommitConflictException.class);
        if (!before.isEmpty()) {
          assertThat(((CommitConflictException) error).conflictingFiles())
              .as(where("the refusal names the files in conflict"))
              .isNotEmpty();
        }
        // the caller (a compaction job's committer) aborts: the outputs are deleted
        assertThat(committer.abort(List.of(m))).as(where("abort")).isEmpty();
        for (Live out : after) {
          assertThat(path(out)).as(where("an aborted output")).doesNotExist();
        }
        assertThat(latestId()).as(where("nothing committed")).isEqualTo(snapshots.size());
        checkTable();
        return;
      }
      assertThat(error).as(where("compaction accepted")).isNull();
      apply(CommitKind.COMPACT, id, before, after);
      abortLanded(List.of(m));
    }

    /**
     * A primary-key writer's commit: new level-0 files and its own compaction of the bucket. The
     * files land in an APPEND snapshot; the compaction in a COMPACT one, or, when the rules refuse
     * it, it is dropped and its outputs deleted while the appended files stay.
     */
    private void writerCommit() throws Exception {
      Live any = pick(new ArrayList<>(live.values()));
      int p = any.p;
      int bucket = any.bucket;
      List<Live> appended = List.of(newFile(p, bucket, 0));
      List<Live> before = someOf(bucketFiles(p, bucket));
      List<Live> after = outputs(p, bucket, before);
      OptionalLong base = drawBase();
      boolean deleteAnOutput = !after.isEmpty() && random.nextInt(10) == 0;
      if (deleteAnOutput) {
        Files.delete(path(pick(after)));
      }
      List<DataFileMeta> compactAfter = new ArrayList<>(files(after));
      CommitMessage m =
          new CommitMessage(
              partition(p),
              bucket,
              buckets,
              files(appended),
              files(before),
              compactAfter,
              List.of(),
              base);
      long id = ++identifier;
      long appendId = nextSnapshotId();
      List<Long> ids;
      if (random.nextInt(3) == 0) {
        // An earlier attempt of this window landed the APPEND and failed before the COMPACT: a
        // restored committer commits the whole window again, and only its compaction is left.
        CommitMessage appendOnly =
            CommitMessage.append(partition(p), bucket, buckets, files(appended));
        assertThat(committer.commit(List.of(appendOnly), id, false))
            .as(where("the first attempt's APPEND"))
            .containsExactly(appendId);
        FileStoreCommit restored = new FileStoreCommit(store, "u");
        ids = new ArrayList<>(List.of(appendId));
        ids.addAll(restored.commit(List.of(m), id, true));
      } else {
        ids = committer.commit(List.of(m), id, false);
      }
      record(CommitKind.APPEND, id, List.of(), appended);
      // the compaction is judged on top of the APPEND snapshot
      String refusal = deleteAnOutput ? "outputs missing" : refusal(before, after, base, p, bucket);
      if (refusal != null) {
        assertThat(ids)
            .as(where("writer compaction dropped: " + refusal))
            .containsExactly(appendId);
        for (Live out : after) {
          assertThat(path(out)).as(where("a dropped output is deleted")).doesNotExist();
        }
        checkTable();
        return;
      }
      assertThat(ids).as(where("writer commit")).containsExactly(appendId, appendId + 1);
      apply(CommitKind.COMPACT, id, before, after);
    }

    /**
     * Deletion vectors for files of one bucket, as a primary-key writer with deletion vectors marks
     * rows of older files: one or two messages (two may mark the same file; their vectors are
     * merged), each built on the vectors of the snapshot it read, now and then for a file already
     * replaced.
     */
    private void deleteRows() throws Exception {
      Live any = pick(new ArrayList<>(live.values()));
      int p = any.p;
      int bucket = any.bucket;
      List<CommitMessage> messages = new ArrayList<>();
      List<OptionalLong> bases = new ArrayList<>();
      List<List<Live>> marked = new ArrayList<>();
      for (int n = random.nextInt(4) == 0 ? 2 : 1; n > 0; n--) {
        OptionalLong base = drawBase();
        List<Live> targets = someOf(bucketFiles(p, bucket));
        while (targets.size() > 2) {
          targets.remove(random.nextInt(targets.size()));
        }
        List<Live> replaced = new ArrayList<>();
        for (Live r : removed) {
          if (r.p == p && r.bucket == bucket) {
            replaced.add(r);
          }
        }
        if (!replaced.isEmpty() && random.nextInt(8) == 0) {
          targets.add(pick(replaced));
        }
        Map<String, RoaringBitmap> bitmaps = new LinkedHashMap<>();
        for (Live t : targets) {
          RoaringBitmap bits = new RoaringBitmap();
          DeletionFile read = base.isEmpty() ? null : vectorsAt(base.getAsLong()).get(name(t));
          if (read != null) {
            bits.or(positions.get(read)); // the writer adds to the vector it read
          }
          for (int k = 1 + random.nextInt(3); k > 0; k--) {
            bits.add(random.nextInt((int) t.file.rowCount()));
          }
          bitmaps.put(name(t), bits);
        }
        List<DeletionFile> files = DeletionVectors.write(store, bitmaps);
        for (DeletionFile d : files) {
          positions.put(d, bitmaps.get(d.dataFile()));
        }
        messages.add(
            new CommitMessage(
                partition(p), bucket, buckets, List.of(), List.of(), List.of(), files, base));
        bases.add(base);
        marked.add(targets);
      }
      String refusal = null;
      for (List<Live> targets : marked) {
        for (Live t : targets) {
          if (refusal == null && !live.containsKey(name(t))) {
            refusal = "no longer in the latest snapshot";
          }
        }
      }
      for (OptionalLong base : bases) {
        if (refusal == null) {
          refusal = serializable(base, p, bucket);
        }
      }
      long id = ++identifier;
      maybeRace();
      Throwable error = catchThrowable(() -> committer.commit(messages, id, false));
      raceArmed.set(false);
      if (refusal != null) {
        assertThat(error).as(where("deletion vectors refused")).isNotNull();
        assertThat(error.getMessage()).as(where("deletion vectors refused")).contains(refusal);
        assertThat(error).isInstanceOf(CommitConflictException.class);
        assertThat(latestId()).as(where("nothing committed")).isEqualTo(snapshots.size());
        assertThat(committer.abort(messages)).as(where("abort")).isEmpty();
        for (String dv : dvFiles(messages)) {
          assertThat(local(store.paths().index(dv)))
              .as(where("an aborted vector file"))
              .doesNotExist();
        }
        checkTable();
        return;
      }
      assertThat(error).as(where("deletion vectors accepted")).isNull();
      // The first vector of a file replaces the one it was built on; a second one of the same
      // commit is merged with it: the wider one if it holds both, else their union in a new file.
      Map<String, DeletionFile> next = new LinkedHashMap<>();
      Map<String, RoaringBitmap> unions = new HashMap<>(); // merged into a new file
      for (CommitMessage m : messages) {
        for (DeletionFile d : m.deletionFiles()) {
          DeletionFile first = next.get(d.dataFile());
          if (first == null) {
            next.put(d.dataFile(), d);
            continue;
          }
          RoaringBitmap union = RoaringBitmap.or(positions.get(first), positions.get(d));
          DeletionFile widest =
              positions.get(d).getLongCardinality() > positions.get(first).getLongCardinality()
                  ? d
                  : first;
          if (union.getLongCardinality() == positions.get(widest).getLongCardinality()) {
            next.put(d.dataFile(), widest);
          } else {
            next.remove(d.dataFile());
            unions.put(d.dataFile(), union);
          }
        }
      }
      vectors.putAll(next);
      Map<String, DeletionFile> committed = indexOfLatest();
      for (Map.Entry<String, RoaringBitmap> u : unions.entrySet()) {
        DeletionFile d = committed.get(u.getKey());
        assertThat(d).as(where("the merged vector of " + u.getKey())).isNotNull();
        assertThat(d.dvFile())
            .as(where("a merged vector is a new file"))
            .isNotIn(dvFiles(messages));
        assertThat(DeletionVectors.read(store, d))
            .as(where("the union of two vectors of " + u.getKey()))
            .isEqualTo(u.getValue());
        positions.put(d, u.getValue());
        vectors.put(u.getKey(), d);
      }
      record(CommitKind.COMPACT, id, List.of(), List.of());
      checkTable();
      abortLanded(messages);
    }

    /**
     * Now and then, a restored committer that cannot tell the commit landed gives up and aborts its
     * messages: it must delete nothing the latest snapshot references (checked by {@link
     * #checkTable}: the live files, the vectors and the metadata directories).
     */
    private void abortLanded(List<CommitMessage> messages) {
      if (random.nextInt(4) == 0) {
        new FileStoreCommit(store, "u").abort(messages);
        checkTable();
      }
    }

    private static Set<String> dvFiles(List<CommitMessage> messages) {
      Set<String> out = new HashSet<>();
      messages.forEach(m -> m.deletionFiles().forEach(d -> out.add(d.dvFile())));
      return out;
    }

    private void overwrite() throws Exception {
      int p = random.nextInt(PARTITIONS);
      List<Live> added = new ArrayList<>();
      List<CommitMessage> messages = new ArrayList<>();
      for (int f = random.nextInt(3); f > 0; f--) {
        int bucket = random.nextInt(buckets);
        Live l = newFile(p, bucket, 0);
        added.add(l);
        messages.add(CommitMessage.append(partition(p), bucket, buckets, List.of(l.file)));
      }
      long id = ++identifier;
      maybeRace();
      // an overwrite names its partition by the files it writes, or by a filter when it writes none
      List<Long> ids =
          committer.overwrite(messages, added.isEmpty() ? partitionIs(p) : null, id, false);
      raceArmed.set(false);
      // what it replaces: the partition's files when it lands, a racing append's too
      List<Live> replaced = new ArrayList<>();
      for (Live l : live.values()) {
        if (l.p == p) {
          replaced.add(l);
        }
      }
      if (replaced.isEmpty() && added.isEmpty()) {
        assertThat(ids).as(where("an overwrite of nothing with nothing")).isEmpty();
        checkTable();
        return;
      }
      assertThat(ids).as(where("overwrite")).containsExactly(nextSnapshotId());
      apply(CommitKind.OVERWRITE, id, replaced, added);
      if (random.nextBoolean()) {
        // a restored job overwrites again with the same identifier: nothing changes
        assertThat(new FileStoreCommit(store, "u").overwrite(messages, null, id, true))
            .as(where("a repeated overwrite"))
            .isEmpty();
        checkTable();
      }
    }

    private void truncate() throws Exception {
      long id = ++identifier;
      List<Long> ids = committer.truncate(id);
      if (live.isEmpty()) {
        assertThat(ids).as(where("truncating an empty table")).isEmpty();
        checkTable();
        return;
      }
      assertThat(ids).as(where("truncate")).containsExactly(nextSnapshotId());
      apply(CommitKind.OVERWRITE, id, new ArrayList<>(live.values()), List.of());
    }

    /**
     * A restored committer commits again an identifier that already landed (or an older one): it is
     * skipped, and the files it would add are not committed twice.
     */
    private void repeat() throws Exception {
      if (snapshots.isEmpty()) {
        append();
        return;
      }
      long last = snapshots.get(snapshots.size() - 1).identifier;
      long id = 1 + random.nextInt((int) last);
      Live l = newFile(random.nextInt(PARTITIONS), 0, 0);
      CommitMessage m = CommitMessage.append(partition(l.p), 0, buckets, List.of(l.file));
      FileStoreCommit restored = new FileStoreCommit(store, "u");
      assertThat(restored.isCommitted(id)).as(where("identifier " + id + " landed")).isTrue();
      assertThat(restored.commit(List.of(m), id, true)).as(where("repeated " + id)).isEmpty();
      checkTable();
    }

    // ---- the rules ----

    /**
     * What the commit rules say about a compaction of {@code before} into {@code after} read at
     * {@code base}, on top of the model's latest snapshot: null when it commits, else a phrase of
     * the error of the first rule it breaks, in the order they are checked.
     */
    private String refusal(
        List<Live> before, List<Live> after, OptionalLong base, int p, int bucket) {
      for (Live b : before) {
        if (!live.containsKey(b.file.fileName())) {
          return "no longer in the latest snapshot";
        }
      }
      // the inputs' vectors must be the ones the rewrite read
      boolean unknown = false;
      for (Live b : before) {
        DeletionFile now = vectors.get(name(b));
        if (base.isEmpty()) {
          unknown |= now != null;
        } else if (!Objects.equals(vectorsAt(base.getAsLong()).get(name(b)), now)) {
          return "the deletion vectors of files to replace changed";
        }
      }
      if (unknown) {
        return "files to replace have deletion vectors";
      }
      boolean levelled = primaryKey && anyLevelled(before, after);
      if (levelled && overlaps(before, after, p, bucket)) {
        return "overlap";
      }
      // every compaction of a primary-key table decided on the bucket's levels at its base (one
      // that writes nothing too: first-row dropping level-0 rows whose keys it found above)
      return primaryKey ? serializable(base, p, bucket) : null;
    }

    /**
     * The bucket rule for a compaction, or a message that changes the levels >= 1 or the deletion
     * vectors of a bucket: its base is known, and no commit since changed the bucket's levels or
     * vectors.
     */
    private String serializable(OptionalLong base, int p, int bucket) {
      // the error names the bucket and its partition
      String named = "bucket " + bucket + " of partition p=" + p;
      if (base.isEmpty()) {
        return named + " but the snapshot its work read is unknown";
      }
      for (long id = base.getAsLong() + 1; id <= snapshots.size(); id++) {
        SnapshotModel s = snapshots.get((int) id - 1);
        if (s.kind != CommitKind.APPEND && s.levelledBuckets.contains(p + "/" + bucket)) {
          return " of " + named + " after snapshot " + base.getAsLong();
        }
      }
      if (deletionVectors
          && !bucketVectors(vectorsAt(base.getAsLong()), p, bucket)
              .equals(bucketVectors(vectors, p, bucket))) {
        return "the deletion vectors of " + named;
      }
      return null;
    }

    private Map<String, DeletionFile> bucketVectors(
        Map<String, DeletionFile> all, int p, int bucket) {
      Map<String, DeletionFile> out = new TreeMap<>();
      all.forEach(
          (file, d) -> {
            Live l = live.get(file);
            Live owner = l != null ? l : removedByName(file);
            if (owner.p == p && owner.bucket == bucket) {
              out.put(file, d);
            }
          });
      return out;
    }

    private Live removedByName(String file) {
      for (Live r : removed) {
        if (name(r).equals(file)) {
          return r;
        }
      }
      throw new IllegalStateException("no file " + file);
    }

    /** The vectors of snapshot {@code id} (0: none). */
    private Map<String, DeletionFile> vectorsAt(long id) {
      return id == 0 ? Map.of() : snapshots.get((int) id - 1).vectors;
    }

    private static boolean anyLevelled(List<Live> before, List<Live> after) {
      return Stream.concat(before.stream(), after.stream()).anyMatch(l -> l.file.level() > 0);
    }

    /** Whether a level >= 1 of the bucket would hold files with overlapping key ranges. */
    private boolean overlaps(List<Live> before, List<Live> after, int p, int bucket) {
      Map<Integer, List<Live>> levels = new TreeMap<>();
      Set<String> gone = new HashSet<>();
      before.forEach(b -> gone.add(b.file.fileName()));
      for (Live l : bucketFiles(p, bucket)) {
        if (!gone.contains(l.file.fileName()) && l.file.level() > 0) {
          levels.computeIfAbsent(l.file.level(), k -> new ArrayList<>()).add(l);
        }
      }
      for (Live l : after) {
        if (l.file.level() > 0) {
          levels.computeIfAbsent(l.file.level(), k -> new ArrayList<>()).add(l);
        }
      }
      for (List<Live> level : levels.values()) {
        for (int i = 0; i < level.size(); i++) {
          for (int j = i + 1; j < level.size(); j++) {
            Live a = level.get(i);
            Live b = level.get(j);
            if (a.min <= b.max && b.min <= a.max) {
              return true;
            }
          }
        }
      }
      return false;
    }

    // ---- the model ----

    /** Applies a commit that landed to the model, then checks the table against it. */
    private void apply(CommitKind kind, long id, List<Live> gone, List<Live> added) {
      record(kind, id, gone, added);
      checkTable();
    }

    /** Applies a commit that landed to the model. */
    private void record(CommitKind kind, long id, List<Live> gone, List<Live> added) {
      record(kind, "u", id, gone, added);
    }

    private void record(CommitKind kind, String user, long id, List<Live> gone, List<Live> added) {
      long delta = 0;
      Set<String> levelled = new HashSet<>();
      for (Live l : gone) {
        live.remove(l.file.fileName());
        vectors.remove(name(l)); // a file's vector goes with it
        removed.add(l);
        delta -= l.records();
        if (l.file.level() > 0 || kind == CommitKind.OVERWRITE) {
          levelled.add(l.p + "/" + l.bucket);
        }
      }
      for (Live l : added) {
        live.put(l.file.fileName(), l);
        delta += l.records();
        if (l.file.level() > 0 || kind == CommitKind.OVERWRITE) {
          levelled.add(l.p + "/" + l.bucket);
        }
      }
      snapshots.add(new SnapshotModel(kind, user, id, delta, levelled, Map.copyOf(vectors)));
    }

    /** The latest snapshot and its files against the model. */
    private void checkTable() {
      Optional<Snapshot> latest = store.snapshotManager().latest();
      assertThat(latest.map(Snapshot::id).orElse(0L))
          .as(where("latest snapshot id"))
          .isEqualTo(snapshots.size());
      if (latest.isEmpty()) {
        return;
      }
      Snapshot s = latest.get();
      SnapshotModel expected = snapshots.get(snapshots.size() - 1);
      assertThat(s.commitKind()).as(where("kind")).isEqualTo(expected.kind);
      assertThat(s.commitIdentifier()).as(where("identifier")).isEqualTo(expected.identifier);
      assertThat(s.commitUser()).as(where("user")).isEqualTo(expected.user);
      Map<String, String> files = new TreeMap<>();
      for (ManifestEntry e : store.newScan().plan(s)) {
        files.put(
            e.file().fileName(),
            "p="
                + e.partition().getInt(0)
                + "/bucket-"
                + e.bucket()
                + "/level-"
                + e.file().level());
      }
      Map<String, String> model = new TreeMap<>();
      long records = 0;
      for (Live l : live.values()) {
        model.put(
            l.file.fileName(), "p=" + l.p + "/bucket-" + l.bucket + "/level-" + l.file.level());
        records += l.records();
      }
      assertThat(files).as(where("live files and levels")).isEqualTo(model);
      assertThat(s.totalFileCount()).as(where("file count")).isEqualTo(model.size());
      assertThat(s.totalRecordCount()).as(where("record count")).isEqualTo(records);
      assertThat(s.deltaRecordCount()).as(where("delta record count")).isEqualTo(expected.delta);
      for (Live l : live.values()) {
        assertThat(path(l)).as(where("a live file exists")).exists();
      }
      assertThat(indexOfLatest()).as(where("deletion vectors")).isEqualTo(vectors);
      assertThat(metadataFiles())
          .as(where("manifest and index files: those the snapshots reference, no more"))
          .isEqualTo(referencedMetadata());
      for (DeletionFile d : vectors.values()) {
        assertThat(local(store.paths().index(d.dvFile())))
            .as(where("a live vector's file exists"))
            .exists();
      }
    }

    /** Names of the files in the manifest and index directories. */
    private Set<String> metadataFiles() {
      Set<String> out = new TreeSet<>();
      for (org.apache.flink.core.fs.Path dir :
          List.of(store.paths().manifest("x").getParent(), store.paths().index("x").getParent())) {
        Path local = local(dir);
        if (Files.isDirectory(local)) {
          try (Stream<Path> files = Files.list(local)) {
            files.forEach(f -> out.add(f.getFileName().toString()));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
      return out;
    }

    /** Every manifest list, manifest, index manifest and vector file of every snapshot. */
    private Set<String> referencedMetadata() {
      Set<String> out = new TreeSet<>();
      try {
        for (long id = 1; id <= snapshots.size(); id++) {
          Snapshot s = store.snapshotManager().snapshot(id);
          for (String list :
              new String[] {
                s.baseManifestList(), s.deltaManifestList(), s.changelogManifestList()
              }) {
            if (list != null) {
              out.add(list);
              store.manifestList().read(list).forEach(m -> out.add(m.fileName()));
            }
          }
          if (s.indexManifest() != null) {
            out.add(s.indexManifest());
            new IndexManifest(store.fileIO(), store.paths())
                .read(s.indexManifest())
                .forEach(e -> out.add(e.deletionFile().dvFile()));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return out;
    }

    /** The latest snapshot's deletion vectors by data file, checking each entry's bucket. */
    private Map<String, DeletionFile> indexOfLatest() {
      Map<String, DeletionFile> out = new TreeMap<>();
      Optional<Snapshot> latest = store.snapshotManager().latest();
      if (latest.isEmpty() || latest.get().indexManifest() == null) {
        return out;
      }
      try {
        for (IndexManifest.Entry e :
            new IndexManifest(store.fileIO(), store.paths()).read(latest.get().indexManifest())) {
          String file = e.deletionFile().dataFile();
          Live l = live.get(file);
          assertThat(l).as(where("the vector of a live file: " + file)).isNotNull();
          assertThat(e.target())
              .as(where("the vector's partition and bucket"))
              .isEqualTo(IndexManifest.target(partition(l.p), l.bucket, file));
          out.put(file, e.deletionFile());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return out;
    }

    // ---- drawing ----

    private Live newFile(int p, int bucket, int level) throws Exception {
      long min = random.nextInt(80);
      return newFile(p, bucket, level, min, min + random.nextInt(level == 0 ? 20 : 8));
    }

    private Live newFile(int p, int bucket, int level, long min, long max) throws Exception {
      long rows = 1 + random.nextInt(100);
      long deleted = random.nextInt(4) == 0 ? random.nextInt((int) rows + 1) : 0;
      DataFileMeta file =
          new DataFileMeta(
              "data-" + seed + "-" + nextFile++ + ".parquet",
              1024,
              rows,
              key(p, min),
              key(p, max),
              BinaryRows.EMPTY,
              BinaryRows.EMPTY,
              new long[0],
              0,
              rows - 1,
              0,
              level,
              0,
              level == 0 ? FileSource.APPEND : FileSource.COMPACT,
              deleted);
      Live l = new Live(p, bucket, file, min, max);
      Path path = path(l);
      Files.createDirectories(path.getParent());
      Files.createFile(path);
      return l;
    }

    /**
     * 0 to 2 compaction outputs of the inputs {@code before}: levels 1-2 of a primary-key table
     * (now and then 0), else 0; now and then one more at the level of a file that stays, sharing a
     * boundary key with it.
     */
    private List<Live> outputs(int p, int bucket, List<Live> before) throws Exception {
      List<Live> after = new ArrayList<>();
      for (int f = random.nextInt(3); f > 0; f--) {
        int level = primaryKey && random.nextInt(5) > 0 ? 1 + random.nextInt(2) : 0;
        after.add(newFile(p, bucket, level));
      }
      List<Live> staying = new ArrayList<>();
      for (Live l : bucketFiles(p, bucket)) {
        if (l.file.level() > 0 && !before.contains(l)) {
          staying.add(l);
        }
      }
      if (!staying.isEmpty() && random.nextInt(4) == 0) {
        Live s = pick(staying);
        after.add(
            random.nextBoolean()
                ? newFile(p, bucket, s.file.level(), s.max, s.max + random.nextInt(3))
                : newFile(p, bucket, s.file.level(), Math.max(0, s.min - 3), s.min));
      }
      return after;
    }

    /** The snapshot a compaction read: mostly the latest, now and then older, or unknown. */
    private OptionalLong drawBase() {
      if (random.nextInt(10) == 0) {
        return OptionalLong.empty();
      }
      long latest = latestId();
      return OptionalLong.of(
          Math.max(1, latest - (random.nextInt(3) == 0 ? 0 : random.nextInt(5))));
    }

    private List<Live> bucketFiles(int p, int bucket) {
      List<Live> out = new ArrayList<>();
      for (Live l : live.values()) {
        if (l.p == p && l.bucket == bucket) {
          out.add(l);
        }
      }
      return out;
    }

    private List<Live> someOf(List<Live> files) {
      List<Live> out = new ArrayList<>();
      for (Live l : files) {
        if (random.nextInt(3) > 0) {
          out.add(l);
        }
      }
      if (out.isEmpty() && !files.isEmpty()) {
        out.add(pick(files));
      }
      return out;
    }

    private <T> T pick(List<T> list) {
      return list.get(random.nextInt(list.size()));
    }

    private long latestId() {
      return store.snapshotManager().latestId().orElse(0L);
    }

    private long nextSnapshotId() {
      return snapshots.size() + 1;
    }

    private Path path(Live l) {
      return local(store.dataFilePath(partition(l.p), l.bucket, l.file.fileName()));
    }

    /** The local file of a path of the table (on the faulty:// file system). */
    private static Path local(org.apache.flink.core.fs.Path path) {
      return Path.of(path.toUri().getPath());
    }

    private String where(String what) {
      return "seed " + seed + ", step " + step + ": " + what;
    }

    private Predicate partitionIs(int p) {
      return new PredicateBuilder(store.partitionType()).equal("p", p);
    }

    private static BinaryRowData partition(int p) {
      return BinaryRows.toBinary(PARTITION_TYPE, GenericRowData.of(p));
    }

    private static BinaryRowData key(int p, long id) {
      return BinaryRows.toBinary(KEY_TYPE, GenericRowData.of(p, id));
    }

    private static String name(Live l) {
      return l.file.fileName();
    }

    private static List<DataFileMeta> files(List<Live> files) {
      return files.stream().map(l -> l.file).toList();
    }
  }

  /** A file of the model: its partition value, bucket, metadata and key range. */
  private record Live(int p, int bucket, DataFileMeta file, long min, long max) {
    long records() {
      return file.rowCount() - file.deleteRowCount();
    }
  }

  /**
   * What a snapshot did: its kind, identifier, record delta and the buckets whose levels changed.
   */
  private record SnapshotModel(
      CommitKind kind,
      String user,
      long identifier,
      long delta,
      Set<String> levelledBuckets,
      Map<String, DeletionFile> vectors) {}
}
