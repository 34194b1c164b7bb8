package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.data.BinaryRows;
import java.util.Objects;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.util.SerializedThrowable;

/** Field-by-field comparison of state values (rows by bytes, errors by their text). */
final class StateValues {

  private StateValues() {}

  private static boolean sameRow(BinaryRowData a, BinaryRowData b) {
    return a.getArity() == b.getArity() && BinaryRows.equals(a, b);
  }

  private static boolean sameError(SerializedThrowable a, SerializedThrowable b) {
    return a.getOriginalErrorClassName().equals(b.getOriginalErrorClassName())
        && Objects.equals(a.getMessage(), b.getMessage())
        && a.getFullStringifiedStackTrace().equals(b.getFullStringifiedStackTrace());
  }

  static void assertSame(Object actual, Object expected) {
    assertThat(actual)
        .usingRecursiveComparison()
        .withEqualsForType(StateValues::sameRow, BinaryRowData.class)
        .withEqualsForType(StateValues::sameError, SerializedThrowable.class)
        .isEqualTo(expected);
  }

  static void assertSameSplit(CompactTaskSplit actual, CompactTaskSplit expected) {
    assertSame(actual, expected);
  }

  static void assertSameState(CompactEnumeratorState actual, CompactEnumeratorState expected) {
    assertSame(actual, expected);
  }

  static void assertSameMessage(CompactMessage actual, CompactMessage expected) {
    assertSame(actual, expected);
  }

  static void assertSameCommitMessage(CommitMessage actual, CommitMessage expected) {
    assertSame(actual, expected);
  }
}
