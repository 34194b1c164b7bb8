package io.sediment.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.data.BinaryRows;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileSource;
import io.sediment.testutil.DataFiles;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A commit message is what a writer or rewrite hands its committer, and what a checkpoint keeps
 * until the commit: on generated messages (every part empty or not, changelog of both sources,
 * known and unknown bases) it survives Java serialization unchanged, says it is empty exactly when
 * it changes nothing, splits its changelog by source, and names every file it adds.
 */
class CommitMessageTest {

  private static final RowType PARTITION = RowType.of(new IntType());

  static Stream<Long> seeds() {
    return LongStream.range(0, 32).boxed();
  }

  private static DataFileMeta file(String name, FileSource source) {
    return DataFiles.tenRows(name, 100, 0, 0, source);
  }

  private static List<DataFileMeta> files(Random r, String prefix, FileSource source) {
    List<DataFileMeta> out = new ArrayList<>();
    int n = r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(3);
    for (int i = 0; i < n; i++) {
      out.add(file(prefix + i, source));
    }
    return out;
  }

  /** A message whose parts are each empty with some probability, so that all combinations come. */
  private static CommitMessage message(long seed) {
    Random r = new Random(seed);
    List<DataFileMeta> changelog = new ArrayList<>(files(r, "input-changelog-", FileSource.APPEND));
    changelog.addAll(files(r, "compact-changelog-", FileSource.COMPACT));
    List<DeletionFile> vectors = new ArrayList<>();
    for (int i = r.nextInt(3) == 0 ? 2 : 0; i > 0; i--) {
      vectors.add(new DeletionFile("data-x" + i, "dv-" + i, 4L * i, 4, i));
    }
    return new CommitMessage(
        BinaryRows.toBinary(PARTITION, GenericRowData.of(r.nextInt(5))),
        r.nextInt(4),
        4,
        files(r, "new-", FileSource.APPEND),
        files(r, "before-", FileSource.APPEND),
        files(r, "after-", FileSource.COMPACT),
        vectors,
        r.nextBoolean() ? OptionalLong.of(r.nextInt(9)) : OptionalLong.empty(),
        changelog);
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void survivesJavaSerializationUnchanged(long seed) throws Exception {
    CommitMessage m = message(seed);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(m);
    }
    CommitMessage read;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      read = (CommitMessage) in.readObject();
    }
    assertSameChanges(read, m);
    assertThat(read.baseSnapshotId()).isEqualTo(m.baseSnapshotId());
    assertThat(read.toString()).isEqualTo(m.toString());
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void isEmptyExactlyWhenItChangesNothing(long seed) {
    CommitMessage m = message(seed);
    boolean changes =
        !m.newFiles().isEmpty()
            || !m.compactBefore().isEmpty()
            || !m.compactAfter().isEmpty()
            || !m.deletionFiles().isEmpty()
            || !m.changelogFiles().isEmpty();
    assertThat(m.isEmpty()).isEqualTo(!changes);
    CommitMessage nothing =
        new CommitMessage(m.partition(), m.bucket(), 4, List.of(), List.of(), List.of());
    assertThat(nothing.isEmpty()).isTrue();
    assertThat(nothing.changelogFiles()).isEmpty();
    assertThat(nothing.deletionFiles()).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void splitsItsChangelogBySourceAndNamesEveryFileItAdds(long seed) {
    CommitMessage m = message(seed);
    assertThat(m.inputChangelog())
        .allMatch(f -> f.fileName().startsWith("input-changelog-"))
        .hasSize(
            (int) m.changelogFiles().stream().filter(f -> f.source() == FileSource.APPEND).count());
    assertThat(m.compactChangelog())
        .allMatch(f -> f.fileName().startsWith("compact-changelog-"))
        .hasSize(m.changelogFiles().size() - m.inputChangelog().size());

    Set<String> expected = new HashSet<>();
    m.newFiles().forEach(f -> expected.add(f.fileName()));
    m.compactAfter().forEach(f -> expected.add(f.fileName()));
    m.deletionFiles().forEach(d -> expected.add(d.dvFile()));
    m.changelogFiles().forEach(f -> expected.add(f.fileName()));
    assertThat(m.outputFileNames()).isEqualTo(expected);
    assertThat(m.outputFileNames()).noneMatch(n -> n.startsWith("before-"));
    CommitMessage other = message(seed + 1000);
    Set<String> both = new HashSet<>(expected);
    both.addAll(other.outputFileNames());
    assertThat(CommitMessage.outputFileNames(List.of(m, other))).isEqualTo(both);
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void aNewBaseChangesOnlyTheBase(long seed) {
    CommitMessage m = message(seed);
    CommitMessage rebased = m.withBaseSnapshotId(OptionalLong.of(42));
    assertThat(rebased.baseSnapshotId()).hasValue(42);
    assertThat(m.withBaseSnapshotId(OptionalLong.empty()).baseSnapshotId()).isEmpty();
    assertSameChanges(rebased, m);
  }

  /** Every part of {@code actual} but its base equals {@code expected}'s. */
  private static void assertSameChanges(CommitMessage actual, CommitMessage expected) {
    assertThat(actual.partition()).isEqualTo(expected.partition());
    assertThat(actual.bucket()).isEqualTo(expected.bucket());
    assertThat(actual.totalBuckets()).isEqualTo(expected.totalBuckets());
    assertThat(actual.newFiles()).isEqualTo(expected.newFiles());
    assertThat(actual.compactBefore()).isEqualTo(expected.compactBefore());
    assertThat(actual.compactAfter()).isEqualTo(expected.compactAfter());
    assertThat(actual.deletionFiles()).isEqualTo(expected.deletionFiles());
    assertThat(actual.changelogFiles()).isEqualTo(expected.changelogFiles());
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void describesItsCountsForLogs(long seed) {
    CommitMessage m = message(seed);
    String s = m.toString();
    assertThat(s)
        .contains("bucket=" + m.bucket())
        .contains("new=" + m.newFiles().size())
        .contains("before=" + m.compactBefore().size())
        .contains("after=" + m.compactAfter().size())
        .contains("deletionVectors=" + m.deletionFiles().size())
        .contains(
            "base="
                + (m.baseSnapshotId().isPresent() ? m.baseSnapshotId().getAsLong() : "unknown"));
    if (m.changelogFiles().isEmpty()) {
      assertThat(s).doesNotContain("changelog=");
    } else {
      assertThat(s).contains("changelog=" + m.changelogFiles().size());
    }
  }

  /**
   * The claim of a batch commit on its messages: claimed messages are refused by the next claim (of
   * any list holding one of them), given back by a release unless a snapshot landed, and a list
   * holding one message twice is refused without claiming any.
   */
  @Test
  void aBatchCommitClaimsItsMessagesOnce() throws Exception {
    CommitMessage a = message(1);
    CommitMessage b = message(2);
    CommitMessage c = message(3);

    CommitMessage.BatchClaim first = CommitMessage.claimForBatch(List.of(a, b));
    assertThatThrownBy(() -> CommitMessage.claimForBatch(List.of(c, b)))
        .isInstanceOf(BatchMessagesCommittedException.class)
        .hasMessageContaining("committed by an earlier batch commit");
    CommitMessage.claimForBatch(List.of(c)); // the refused claim took nothing

    first.releaseUnlessLanded(); // failed, nothing landed
    CommitMessage.BatchClaim second = CommitMessage.claimForBatch(List.of(b, a));
    second.landed();
    second.releaseUnlessLanded(); // a snapshot landed: they stay claimed
    assertThatThrownBy(() -> CommitMessage.claimForBatch(List.of(a)))
        .isInstanceOf(BatchMessagesCommittedException.class);

    CommitMessage d = message(4);
    assertThatThrownBy(() -> CommitMessage.claimForBatch(List.of(d, d)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the same commit message twice");
    CommitMessage.claimForBatch(List.of(d)); // not claimed by the refused list
    // a copy (serialized and read back) is a new message to the claim
    CommitMessage.claimForBatch(List.of(InstantiationUtil.clone(d)));
  }
}
