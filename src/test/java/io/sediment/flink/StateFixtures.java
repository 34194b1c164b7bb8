package io.sediment.flink;

import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.ExecutionMode;
import io.sediment.data.BinaryRows;
import io.sediment.flink.serde.CommitMessageCodec;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedBytes;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The values of the checked-in layout fixtures under {@code serialization/v<CURRENT>}, and their
 * generator. The fixtures pin the bytes of the current layout: {@link StateLayoutFixtureTest} fails
 * when a serializer writes anything else under the same version.
 *
 * <p>Regenerate only together with a new layout version (bump {@link StateLayout#CURRENT}, keep the
 * old fixture directory and its test), from the project directory:
 *
 * <pre>
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp "target/test-classes:target/classes:$(cat target/cp.txt)" io.sediment.flink.StateFixtures
 * </pre>
 *
 * <p>The version-2 fixtures ({@code serialization/v2}) are these values (of layout 2's fields)
 * written once by {@code InstantiationUtil.serializeObject} (records: an {@code int} length first;
 * committer windows: a {@code TreeMap} of {@code ArrayList}s), as the version-2 code did; they were
 * checked to read with that code and are never regenerated.
 */
final class StateFixtures {

  static final RowType PARTITION = RowType.of(new VarCharType(VarCharType.MAX_LENGTH));
  static final RowType KEY = RowType.of(new BigIntType());
  static final RowType VALUES =
      RowType.of(new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH), new IntType());

  private StateFixtures() {}

  static BinaryRowData partition(String p) {
    return BinaryRows.toBinary(PARTITION, GenericRowData.of(StringData.fromString(p)));
  }

  static DataFileMeta file(String name, int level, long minKey, long maxKey, FileSource source) {
    return new DataFileMeta(
        name,
        4096 + level,
        100 + minKey,
        BinaryRows.toBinary(KEY, GenericRowData.of(minKey)),
        BinaryRows.toBinary(KEY, GenericRowData.of(maxKey)),
        BinaryRows.toBinary(
            VALUES, GenericRowData.of(minKey, StringData.fromString("a" + name), null)),
        BinaryRows.toBinary(
            VALUES, GenericRowData.of(maxKey, StringData.fromString("z" + name), null)),
        new long[] {0, 1, 100 + minKey},
        minKey * 10,
        maxKey * 10,
        1,
        level,
        1_700_000_000_000L + level,
        source,
        level == 0 ? 0 : 3);
  }

  /** A merge-tree task of partition {@code p=a}, planned from snapshot 42. */
  static CompactTask mergeTask() {
    return new CompactTask(
        "db.t",
        partition("a"),
        "p=a",
        1,
        2,
        List.of(
            file("data-0.parquet", 0, 1, 9, FileSource.APPEND),
            file("data-1.parquet", 3, 5, 20, FileSource.COMPACT)),
        5,
        CompactTask.Kind.MERGE_TREE,
        true,
        OptionalLong.of(42));
  }

  /** An append rewrite of an unpartitioned table, base unknown. */
  static CompactTask appendTask() {
    return new CompactTask(
        "db.log",
        BinaryRows.EMPTY,
        "",
        0,
        -1,
        List.of(file("data-2.parquet", 0, 0, 0, FileSource.APPEND)),
        0,
        CompactTask.Kind.APPEND_REWRITE,
        false);
  }

  static CommitMessage compactMessage() {
    CompactTask task = mergeTask();
    return new CommitMessage(
        task.partition(),
        task.bucket(),
        task.totalBuckets(),
        List.of(),
        task.inputs(),
        List.of(file("data-3.parquet", 5, 1, 20, FileSource.COMPACT)),
        List.of(new DeletionFile("data-9.parquet", "index-0", 4, 40, 7)),
        OptionalLong.of(42));
  }

  static CommitMessage appendMessage() {
    return CommitMessage.append(
        partition("b"), 0, 2, List.of(file("data-4.parquet", 0, 3, 4, FileSource.APPEND)));
  }

  /**
   * A primary-key writer's window with a changelog producer (layout 4): its new file, its own
   * compaction, the input changelog and the compaction's lookup changelog.
   */
  static CommitMessage changelogMessage() {
    DataFileMeta added = file("data-5.parquet", 0, 2, 8, FileSource.APPEND);
    return new CommitMessage(
        partition("c"),
        1,
        2,
        List.of(added),
        List.of(added),
        List.of(file("data-6.parquet", 5, 2, 8, FileSource.COMPACT)),
        List.of(),
        OptionalLong.of(43),
        List.of(
            file("changelog-0.parquet", 0, 2, 8, FileSource.APPEND),
            file("changelog-1.parquet", 0, 2, 8, FileSource.COMPACT)));
  }

  static CompactTaskSplit split() {
    return new CompactTaskSplit("7", mergeTask(), "job-user");
  }

  static CompactEnumeratorState enumeratorState() {
    return new CompactEnumeratorState(
        List.of(split()), List.of(new CompactTaskSplit("6", appendTask(), null)), 8, "job-user");
  }

  static CompactMessage success() {
    CompactTaskResult result =
        new CompactTaskResult(mergeTask(), compactMessage(), 205, 200, 8199, 4101, 1234);
    return CompactMessage.success(split(), result, List.of("marker-1", "marker-2"));
  }

  static CompactMessage failure() {
    IOException error = new IOException("disk full while writing data-3.parquet");
    error.setStackTrace(
        new StackTraceElement[] {
          new StackTraceElement("io.sediment.io.Writer", "write", "Writer.java", 12)
        });
    return CompactMessage.failure(split(), error, List.of("marker-1"));
  }

  static TreeMap<Long, List<CompactMessage>> committerWindows() {
    TreeMap<Long, List<CompactMessage>> windows = new TreeMap<>();
    windows.put(3L, List.of(success()));
    windows.put(4L, List.of(success(), success()));
    return windows;
  }

  static TreeMap<Long, List<CommitMessage>> sqlCommitterWindows() {
    TreeMap<Long, List<CommitMessage>> windows = new TreeMap<>();
    windows.put(5L, List.of(appendMessage()));
    return windows;
  }

  /**
   * The fixture files of the current layout whose bytes are deterministic (a failed message holds
   * the JDK's Java serialization of its error, so it is checked by value only).
   */
  static Map<String, byte[]> deterministicFixtures() throws IOException {
    CompactTaskSource source = new CompactTaskSource(null, ExecutionMode.BATCH, 0, "job-user");
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("split.bin", source.getSplitSerializer().serialize(split()));
    files.put(
        "enumerator-state.bin",
        source.getEnumeratorCheckpointSerializer().serialize(enumeratorState()));
    files.put("compact-message-record.bin", record(success()));
    files.put(
        "committer-windows.bin",
        VersionedBytes.write(
            committerWindows(), CommitWindows.stateCodec(CompactMessageCodec.INSTANCE)));
    files.put(
        "sql-commit-messages.bin",
        CommitMessageListCodec.toBytes(
            List.of(appendMessage(), compactMessage(), changelogMessage())));
    files.put(
        "sql-committer-windows.bin",
        VersionedBytes.write(
            sqlCommitterWindows(), CommitWindows.stateCodec(CommitMessageCodec.INSTANCE)));
    return files;
  }

  static byte[] record(CompactMessage m) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(1024);
    CompactMessageSerializer.INSTANCE.serialize(m, out);
    return out.getCopyOfBuffer();
  }

  static Path directory(int version) {
    return Paths.get("src/test/resources/serialization/v" + version);
  }

  /** Writes the fixtures of the current layout (see the class comment for when). */
  public static void main(String[] args) throws IOException {
    Path dir = directory(StateLayout.CURRENT);
    Files.createDirectories(dir);
    for (Map.Entry<String, byte[]> f : deterministicFixtures().entrySet()) {
      Files.write(dir.resolve(f.getKey()), f.getValue());
    }
    Files.write(dir.resolve("compact-message-failed-record.bin"), record(failure()));
    System.out.println("Wrote the layout " + StateLayout.CURRENT + " fixtures to " + dir);
  }
}
